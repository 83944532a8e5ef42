import { Type, type IntegerOptions, type NumberOptions, type Static, type StringOptions, type TSchema, type TString } from '@sinclair/typebox';

/** A string-or-null field without `anyOf` (keeps ajv's messages to one per field). */
export function Nullable(schema: TString) {
  return Type.Unsafe<string | null>({ ...schema, type: ['string', 'null'] });
}

export const Uuid = Type.String({ format: 'uuid' });

/*
 * Every number carries its format: a generator types a bare `number` as float32 (Go), which
 * rounds a coordinate's seventh decimal, and a bare `integer` as whatever it likes.
 */
export function Double(options: NumberOptions = {}) {
  return Type.Number({ format: 'double', ...options });
}

export function Int32(options: IntegerOptions = {}) {
  return Type.Integer({ format: 'int32', ...options });
}

export function Int64(options: IntegerOptions = {}) {
  return Type.Integer({ format: 'int64', ...options });
}

/**
 * Texts the API stores as sent. The rules are patterns, so the OpenAPI document
 * promises exactly what the services check: no C0 control character (U+0000 to
 * U+001F) in a single-line text, only tab, line feed and carriage return in free
 * text, and a required text must hold a character that is not white space. Each
 * pattern is linear (the leading run and the first visible character exclude
 * each other, so nothing backtracks twice), and written with `\x` escapes that
 * ECMA-262, RE2 and Python read alike. Lone surrogates cannot be said in a pattern
 * every engine reads; the kit's body reader refuses them (and every C0 character
 * outside free text's three) in any string of any body.
 */
const LINE_CHAR = '[^\\x00-\\x1f]';
const FREE_TEXT_CHAR = '[^\\x00-\\x08\\x0b\\x0c\\x0e-\\x1f]';
/** The first character that is neither white space nor a control character. */
const VISIBLE_CHAR = '[^\\s\\x00-\\x1f]';
export const LINE_PATTERN = `^${LINE_CHAR}*$`;
export const FREE_TEXT_PATTERN = `^${FREE_TEXT_CHAR}*$`;
export const REQUIRED_LINE_PATTERN = `^[^\\S\\x00-\\x1f]*${VISIBLE_CHAR}${LINE_CHAR}*$`;
export const REQUIRED_FREE_TEXT_PATTERN = `^[^\\S\\x00-\\x08\\x0b\\x0c\\x0e-\\x1f]*${VISIBLE_CHAR}${FREE_TEXT_CHAR}*$`;

/**
 * `x-trim`: the kit's body validator stores the value without leading and
 * trailing white space (Laravel's TrimStrings), so what is stored is what the
 * rules judged. An OpenAPI extension, so documents stay valid.
 */
export const TRIM_KEYWORD = 'x-trim';

const LINE_MESSAGE = 'The :attribute field must be a single line without control characters.';
const FREE_TEXT_MESSAGE = 'The :attribute field must not contain control characters other than tabs and line breaks.';

/** A required one-line text (a name, a phone number): trimmed, not blank, no control characters. */
export function RequiredLine(options: StringOptions & { maxLength: number }): TString {
  return Type.String({ minLength: 1, pattern: REQUIRED_LINE_PATTERN, [TRIM_KEYWORD]: true, 'x-error-message': LINE_MESSAGE, ...options });
}

/** A one-line text that may be empty (optional fields): trimmed, no control characters. */
export function Line(options: StringOptions & { maxLength: number }): TString {
  return Type.String({ pattern: LINE_PATTERN, [TRIM_KEYWORD]: true, 'x-error-message': LINE_MESSAGE, ...options });
}

/** Required free text (a purpose, a reason): trimmed, not blank; tabs and line breaks allowed. */
export function RequiredFreeText(options: StringOptions & { maxLength: number }): TString {
  return Type.String({ minLength: 1, pattern: REQUIRED_FREE_TEXT_PATTERN, [TRIM_KEYWORD]: true, 'x-error-message': FREE_TEXT_MESSAGE, ...options });
}

/** Free text that may be empty (a description): trimmed; tabs and line breaks allowed. */
export function FreeText(options: StringOptions & { maxLength: number }): TString {
  return Type.String({ pattern: FREE_TEXT_PATTERN, [TRIM_KEYWORD]: true, 'x-error-message': FREE_TEXT_MESSAGE, ...options });
}

/**
 * ISO 8601 with a numeric UTC offset, as the spec's records show (`+00:00`).
 * Generated clients that validate date-times must accept offsets (zod:
 * `z.string().datetime({ offset: true })`; see the README).
 */
export const Timestamp = Type.String({ format: 'date-time', examples: ['2026-11-23T10:00:00+00:00'] });

/** A flight window's time as the API writes it: RFC 3339 in UTC with `Z`, as it was submitted (`2026-12-01T10:00:00Z`). */
export const UtcTimestamp = Type.String({ format: 'date-time', examples: ['2026-12-01T10:00:00Z'] });

export const ErrorBody = Type.Object({ message: Type.String() }, { $id: 'ErrorBody' });
export type ErrorBody = Static<typeof ErrorBody>;

export const ValidationErrorBody = Type.Object(
  {
    message: Type.String(),
    errors: Type.Record(Type.String(), Type.Array(Type.String())),
  },
  { $id: 'ValidationErrorBody' },
);
export type ValidationErrorBody = Static<typeof ValidationErrorBody>;

/**
 * The name the document gives a wrapper of `schema`: `<Name><suffix>`, so a
 * generated client's `getOperator` returns an `OperatorRecordResponse`
 * instead of a name made up from the first operation that used the shape.
 */
function wrapperId(schema: TSchema, suffix: string): { $id: string } | Record<string, never> {
  return typeof schema.$id === 'string' ? { $id: `${schema.$id}${suffix}` } : {};
}

/** `{ "data": ... }`, Laravel's resource wrapper, named `<Name>Response`. */
export function DataEnvelope<T extends TSchema>(schema: T) {
  return Type.Object({ data: schema }, wrapperId(schema, 'Response'));
}

const Nullish = Type.Unsafe<number | null>({ type: ['integer', 'null'], format: 'int64', minimum: 1 });

export const PageLinks = Type.Object(
  { first: Type.String(), last: Type.String(), prev: Nullable(Type.String()), next: Nullable(Type.String()) },
  { $id: 'PageLinks' },
);

/** One entry of `meta.links`: Laravel's pager (previous, page numbers with "..." gaps, next). */
export const PagerLink = Type.Object({ url: Nullable(Type.String()), label: Type.String(), active: Type.Boolean() }, { $id: 'PagerLink' });

export const PageMeta = Type.Object(
  {
    current_page: Int32({ minimum: 1 }),
    from: Nullish,
    last_page: Int32({ minimum: 1 }),
    links: Type.Array(PagerLink),
    path: Type.String(),
    per_page: Int32({ minimum: 1, maximum: 100 }),
    to: Nullish,
    total: Int64({ minimum: 0 }),
    next_cursor: Type.Optional(Nullable(Type.String({ description: 'large lists: the `cursor` of the page after this one' }))),
  },
  { $id: 'PageMeta' },
);

/** Laravel's paginator envelope, named `<Name>Page`. */
export function Paginated<T extends TSchema>(item: T) {
  return Type.Object({ data: Type.Array(item), links: PageLinks, meta: PageMeta }, wrapperId(item, 'Page'));
}

/** The highest page a list answers (int32): past it, a skip no longer fits the database's own integers. */
export const MAX_PAGE = 2_147_483_647;

/** `page` / `per_page` query parameters: page 1..MAX_PAGE, per_page default 15, max 100. */
export const PageQuery = {
  page: Int32({ minimum: 1, maximum: MAX_PAGE, default: 1 }),
  per_page: Int32({ minimum: 1, maximum: 100, default: 15 }),
};

/**
 * The highest `page` of a list that grows without bound (flight requests, the review queue, a
 * delivery log): a page is a skip over the index, so deeper pages are walked with `cursor`.
 */
export const MAX_LIST_PAGE = 1_000;

/** `page` / `per_page` / `cursor` of a list that grows without bound; `cursor` and `page` exclude each other. */
export const LargeListQuery = {
  page: Int32({ minimum: 1, maximum: MAX_LIST_PAGE, default: 1 }),
  per_page: PageQuery.per_page,
  cursor: Type.Optional(
    Type.String({
      minLength: 1,
      maxLength: 200,
      pattern: '^[A-Za-z0-9_-]+$',
      description: "`meta.next_cursor` of the previous page: the page after it, by the list's order (not with `page`)",
      'x-error-message': 'The cursor is not valid.',
    }),
  ),
};

/**
 * A field Laravel's cursor paginator sends and this one leaves null (a cursor walks forward only):
 * typed as a nullable string, as Laravel's is, since a type of `null` alone has no model in
 * several client generators.
 */
const NullOnCursorPage = Nullable(Type.String({ description: 'always null: a cursor page walks forward only' }));

/** Laravel's cursor paginator envelope, named `<Name>CursorPage`: what a list answers to `cursor`. */
export function CursorPaginated<T extends TSchema>(item: T) {
  return Type.Object(
    {
      data: Type.Array(item),
      links: Type.Object({ first: NullOnCursorPage, last: NullOnCursorPage, prev: NullOnCursorPage, next: Nullable(Type.String()) }),
      meta: Type.Object({
        path: Type.String(),
        per_page: Int32({ minimum: 1, maximum: 100 }),
        next_cursor: Nullable(Type.String()),
        prev_cursor: NullOnCursorPage,
      }),
    },
    wrapperId(item, 'CursorPage'),
  );
}

/** A large list's answer: the page envelope, or with `cursor` the cursor envelope. */
export function PaginatedOrCursor<T extends TSchema>(item: T) {
  return Type.Union([Paginated(item), CursorPaginated(item)]);
}
