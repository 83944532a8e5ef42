import { Type, type Static, type TSchema, type TString } from '@sinclair/typebox';

/** A string-or-null field without `anyOf` (keeps ajv's messages to one per field). */
export function Nullable(schema: TString) {
  return Type.Unsafe<string | null>({ ...schema, type: ['string', 'null'] });
}

export const Uuid = Type.String({ format: 'uuid' });

/**
 * ISO 8601 with a numeric UTC offset, as the spec's records show (`+00:00`).
 * Generated clients that validate date-times must accept offsets (zod:
 * `z.string().datetime({ offset: true })`; see the README).
 */
export const Timestamp = Type.String({ format: 'date-time', examples: ['2026-11-23T10:00:00+00:00'] });

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

const Nullish = Type.Unsafe<number | null>({ type: ['integer', 'null'] });

export const PageLinks = Type.Object(
  { first: Type.String(), last: Type.String(), prev: Nullable(Type.String()), next: Nullable(Type.String()) },
  { $id: 'PageLinks' },
);

/** One entry of `meta.links`: Laravel's pager (previous, page numbers with "..." gaps, next). */
export const PagerLink = Type.Object(
  { url: Nullable(Type.String()), label: Type.String(), active: Type.Boolean() },
  { $id: 'PagerLink' },
);

export const PageMeta = Type.Object(
  {
    current_page: Type.Integer(),
    from: Nullish,
    last_page: Type.Integer(),
    links: Type.Array(PagerLink),
    path: Type.String(),
    per_page: Type.Integer(),
    to: Nullish,
    total: Type.Integer(),
  },
  { $id: 'PageMeta' },
);

/** Laravel's paginator envelope, named `<Name>Page`. */
export function Paginated<T extends TSchema>(item: T) {
  return Type.Object({ data: Type.Array(item), links: PageLinks, meta: PageMeta }, wrapperId(item, 'Page'));
}

/** `page` / `per_page` query parameters: per_page default 15, max 100. */
export const PageQuery = {
  page: Type.Integer({ minimum: 1, default: 1 }),
  per_page: Type.Integer({ minimum: 1, maximum: 100, default: 15 }),
};
