import { Type, type Static } from '@sinclair/typebox';
import { Line, Nullable, PageQuery, RequiredLine, Timestamp, Uuid } from '../schema-helpers.js';

/**
 * API keys look like `dfc_<16 hex id>_<43 base64url secret>`: the id finds the
 * record, the secret is compared (as a SHA-256 digest, in constant time) with
 * the stored hash. Keys are 256-bit random secrets, so a fast hash is enough.
 */
export const API_KEY_PATTERN = /^dfc_([0-9a-f]{16})_([A-Za-z0-9_-]{43})$/;

export const ApiKeyRole = Type.Union([Type.Literal('operator'), Type.Literal('reviewer'), Type.Literal('admin')]);
export type ApiKeyRole = Static<typeof ApiKeyRole>;

/** A label for the key; null, empty or blank means none (Laravel turns empty strings into null). */
const KeyName = Nullable(Line({ maxLength: 100, description: 'null, empty or blank: no name' }));

/** POST /api/operators/{uuid}/api-keys (HTTP Basic: operator email + password). */
export const OperatorApiKeyCreate = Type.Object({ name: Type.Optional(KeyName) }, { $id: 'OperatorApiKeyCreate', additionalProperties: false });
export type OperatorApiKeyCreate = Static<typeof OperatorApiKeyCreate>;

/** POST /api/api-keys (admin key): reviewer and admin keys. */
export const StaffApiKeyCreate = Type.Object(
  {
    name: Type.Optional(KeyName),
    role: Type.Union([Type.Literal('reviewer'), Type.Literal('admin')]),
    authority: Type.Optional(RequiredLine({ maxLength: 100, description: 'required for reviewer keys, not allowed for admin keys' })),
  },
  { $id: 'StaffApiKeyCreate', additionalProperties: false },
);
export type StaffApiKeyCreate = Static<typeof StaffApiKeyCreate>;

export const ApiKeyMetadata = Type.Object(
  {
    id: Type.String(),
    name: Nullable(Type.String()),
    role: ApiKeyRole,
    operator_uuid: Nullable(Uuid),
    authority: Nullable(Type.String()),
    last_four: Type.String(),
    created_at: Timestamp,
    last_used_at: Nullable(Timestamp),
    revoked_at: Nullable(Timestamp),
  },
  { $id: 'ApiKeyMetadata' },
);
export type ApiKeyMetadata = Static<typeof ApiKeyMetadata>;

/** Returned once, at issuance: the metadata plus the key itself. */
export const IssuedApiKey = Type.Intersect([ApiKeyMetadata, Type.Object({ key: Type.String() })], {
  $id: 'IssuedApiKey',
});
export type IssuedApiKey = Static<typeof IssuedApiKey>;

/** `status` filter of the key lists: active keys, revoked keys, or both when absent. */
export const ApiKeyStatus = Type.Union([Type.Literal('active'), Type.Literal('revoked')]);
export type ApiKeyStatus = Static<typeof ApiKeyStatus>;

/** GET /api/operators/{uuid}/api-keys: newest first, Laravel's paginator. */
export const OperatorApiKeyListQuery = Type.Object({ ...PageQuery, status: Type.Optional(ApiKeyStatus) });
export type OperatorApiKeyListQuery = Static<typeof OperatorApiKeyListQuery>;

/** GET /api/api-keys (admin): every key, with optional filters. */
export const ApiKeyListQuery = Type.Object({
  ...PageQuery,
  status: Type.Optional(ApiKeyStatus),
  role: Type.Optional(ApiKeyRole),
  operator_uuid: Type.Optional(Uuid),
  authority: Type.Optional(Type.String({ minLength: 1, maxLength: 100 })),
});
export type ApiKeyListQuery = Static<typeof ApiKeyListQuery>;

/** POST /internal/api-keys/verify, gateway → operator-service only. */
export const ApiKeyVerifyRequest = Type.Object({ key: Type.String({ maxLength: 200 }) }, { $id: 'ApiKeyVerifyRequest' });
export type ApiKeyVerifyRequest = Static<typeof ApiKeyVerifyRequest>;
