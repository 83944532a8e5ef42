import { Type, type Static, type TSchema, type TString } from '@sinclair/typebox';

/** A string-or-null field without `anyOf` (keeps ajv's messages to one per field). */
export function Nullable(schema: TString) {
  return Type.Unsafe<string | null>({ ...schema, type: ['string', 'null'] });
}

export const Uuid = Type.String({ format: 'uuid' });

/** ISO 8601 with a numeric UTC offset, as the spec's records show (`+00:00`). */
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

/** `{ "data": ... }`, Laravel's resource wrapper. */
export function DataEnvelope<T extends TSchema>(schema: T) {
  return Type.Object({ data: schema });
}

/** Laravel's paginator envelope. */
export function Paginated<T extends TSchema>(item: T) {
  return Type.Object({
    data: Type.Array(item),
    links: Type.Object({
      first: Type.String(),
      last: Type.String(),
      prev: Nullable(Type.String()),
      next: Nullable(Type.String()),
    }),
    meta: Type.Object({
      current_page: Type.Integer(),
      from: Type.Union([Type.Integer(), Type.Null()]),
      last_page: Type.Integer(),
      path: Type.String(),
      per_page: Type.Integer(),
      to: Type.Union([Type.Integer(), Type.Null()]),
      total: Type.Integer(),
    }),
  });
}

/** `page` / `per_page` query parameters: per_page default 15, max 100. */
export const PageQuery = {
  page: Type.Integer({ minimum: 1, default: 1 }),
  per_page: Type.Integer({ minimum: 1, maximum: 100, default: 15 }),
};
