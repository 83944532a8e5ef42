import { Type, type Static } from '@sinclair/typebox';
import { Line, LINE_PATTERN, Nullable, RequiredLine, Timestamp, Uuid } from '../schema-helpers.js';

const optionalText = Nullable(Line({ maxLength: 255 }));
const timezone = Nullable(Type.String({ maxLength: 64, description: 'IANA timezone name (<Area>/<City>) or UTC', examples: ['Europe/Berlin'] }));

/**
 * The registration rules of a password, for registration and for a change. Never
 * trimmed (spaces are part of it), but a control character is no part of any.
 */
const password = (options: { description?: string } = {}) =>
  Type.String({
    minLength: 8,
    maxLength: 256,
    writeOnly: true,
    pattern: LINE_PATTERN,
    'x-error-message': 'The :attribute field must not contain control characters.',
    ...options,
  });

/** POST /api/operators (spec §2.1, §8; PRODUCT.md "Operators"). */
export const OperatorCreate = Type.Object(
  {
    company_name: RequiredLine({ maxLength: 255 }),
    email: Type.String({ minLength: 1, maxLength: 255, format: 'email' }),
    password: password(),
    phone: RequiredLine({ maxLength: 50 }),
    operational_authorisation_number: Type.Optional(optionalText),
    operator_registration_number: Type.Optional(optionalText),
    exemption_for_ctr: Type.Optional(Type.Boolean({ default: false })),
    ctr_exemption_number: Type.Optional(Nullable(Line({ maxLength: 255, description: 'required when exemption_for_ctr is true' }))),
    timezone: Type.Optional(timezone),
  },
  { $id: 'OperatorCreate', additionalProperties: false },
);
export type OperatorCreate = Static<typeof OperatorCreate>;

/**
 * PATCH /api/operators/{uuid}: contact fields, same rules, all optional. The
 * CTR rule is checked on the record as it would be after the change. A new
 * `password` needs the `current_password`; API keys issued before stay valid.
 * Any other field (`uuid`, `created_at`, `updated_at`, unknown ones) is refused,
 * and so is a patch that names no field (no body, or `{}`), as for webhook endpoints.
 */
export const OperatorUpdate = Type.Object(
  {
    company_name: Type.Optional(RequiredLine({ maxLength: 255 })),
    email: Type.Optional(Type.String({ minLength: 1, maxLength: 255, format: 'email' })),
    phone: Type.Optional(RequiredLine({ maxLength: 50 })),
    operational_authorisation_number: Type.Optional(optionalText),
    operator_registration_number: Type.Optional(optionalText),
    exemption_for_ctr: Type.Optional(Type.Boolean()),
    ctr_exemption_number: Type.Optional(optionalText),
    timezone: Type.Optional(timezone),
    password: Type.Optional(password({ description: 'the new password (8..256 characters); requires current_password' })),
    current_password: Type.Optional(
      Type.String({ minLength: 1, maxLength: 256, writeOnly: true, description: 'required with password, refused without it' }),
    ),
  },
  { $id: 'OperatorUpdate', additionalProperties: false, minProperties: 1 },
);
export type OperatorUpdate = Static<typeof OperatorUpdate>;

/** The operator record (inside `data`). The password is never part of it. */
export const OperatorRecord = Type.Object(
  {
    uuid: Uuid,
    company_name: Type.String(),
    email: Type.String(),
    phone: Type.String(),
    operational_authorisation_number: Nullable(Type.String()),
    operator_registration_number: Nullable(Type.String()),
    exemption_for_ctr: Type.Boolean(),
    ctr_exemption_number: Nullable(Type.String()),
    timezone: Nullable(Type.String()),
    created_at: Timestamp,
    updated_at: Timestamp,
  },
  { $id: 'OperatorRecord' },
);
export type OperatorRecord = Static<typeof OperatorRecord>;
