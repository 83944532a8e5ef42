import { Type, type Static } from '@sinclair/typebox';
import { Nullable, Uuid } from '../schema-helpers.js';

/**
 * operator.registered / operator.updated: what other services need to know of
 * an operator (never the password, never the email's secrets).
 */
export const OperatorChanged = Type.Object({
  uuid: Uuid,
  company_name: Type.String(),
  email: Type.String(),
  timezone: Nullable(Type.String()),
  exemption_for_ctr: Type.Boolean(),
  ctr_exemption_number: Nullable(Type.String()),
  /** Named in signed flight authorisations; absent in events from before it was carried. */
  operator_registration_number: Type.Optional(Nullable(Type.String())),
});
export type OperatorChanged = Static<typeof OperatorChanged>;

/**
 * operator.password_changed: the operator's password was changed (the API
 * keys issued before stay valid). Only who, never anything secret.
 */
export const OperatorPasswordChanged = Type.Object({ uuid: Uuid });
export type OperatorPasswordChanged = Static<typeof OperatorPasswordChanged>;

export const CREDENTIAL_CHANGES = ['email', 'password', 'api_key_revoked'] as const;
export type CredentialChange = (typeof CREDENTIAL_CHANGES)[number];

/**
 * operator.credentials_changed: the notice an operator gets when its login email or password
 * changes or one of its keys is revoked by another credential, sent to the email it had before
 * the change, so a takeover does not go unnoticed by the account's owner. Never anything secret.
 */
export const OperatorCredentialsChanged = Type.Object({
  uuid: Uuid,
  changes: Type.Array(Type.Union(CREDENTIAL_CHANGES.map((change) => Type.Literal(change))), { minItems: 1 }),
  /** Where the notice goes: the login email before this change. */
  notify_email: Type.String(),
  /** The key revoked, for `api_key_revoked`. */
  key_id: Nullable(Type.String()),
});
export type OperatorCredentialsChanged = Static<typeof OperatorCredentialsChanged>;

/** api_key.revoked: gateways drop the key from their caches. */
export const ApiKeyRevoked = Type.Object({ key_id: Type.String() });
export type ApiKeyRevoked = Static<typeof ApiKeyRevoked>;
