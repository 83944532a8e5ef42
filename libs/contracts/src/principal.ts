/**
 * Who is calling, as the gateway established it from the API key and passes
 * to the services inside the internal token.
 *
 * - `operator`: acts on its own operator's resources only.
 * - `reviewer`: bound to one authority; decides review items of that authority.
 * - `admin`: everything, including geo-zones and reviewer keys.
 * - `system`: the gateway itself (e.g. verifying an API key).
 * - `anonymous`: a public route (registration, key issuance) called without a key.
 */
export type Role = 'operator' | 'reviewer' | 'admin' | 'system' | 'anonymous';

export const ROLES: readonly Role[] = ['operator', 'reviewer', 'admin', 'system', 'anonymous'];

export interface Principal {
  /** The principal's id: operator uuid, key id, or a fixed name for system/anonymous. */
  sub: string;
  role: Role;
  operator_uuid?: string;
  authority?: string;
  key_id?: string;
}

/** Header the gateway uses for the internal token (Authorization stays the client's, e.g. Basic). */
export const INTERNAL_TOKEN_HEADER = 'X-Internal-Token';
export const INTERNAL_TOKEN_ISSUER = 'dfc-gateway';
export const INTERNAL_TOKEN_AUDIENCE = 'dfc-services';
