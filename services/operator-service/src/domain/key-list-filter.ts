import type { ApiKeyRole, ApiKeyStatus } from '@dfc/contracts';

/** The one field that narrows a key list to an owner; the other owner filters follow from it. */
export type KeyOwner = { operator_uuid: string } | { authority: string } | { role: ApiKeyRole } | Record<string, never>;

export interface KeyListFilter {
  owner: KeyOwner;
  status?: ApiKeyStatus;
}

export interface KeyListQuery {
  status?: ApiKeyStatus | undefined;
  role?: ApiKeyRole | undefined;
  operator_uuid?: string | undefined;
  authority?: string | undefined;
}

/**
 * The admin's key filters reduced to one owner field (plus the status), so a
 * handful of indexes serve every combination: only operator keys have an
 * `operator_uuid`, only reviewer keys an `authority`. Null when the filters
 * contradict each other and no key can match.
 */
export function keyListFilter(query: KeyListQuery): KeyListFilter | null {
  const { role, operator_uuid, authority, status } = query;
  const withStatus = (owner: KeyOwner): KeyListFilter => (status ? { owner, status } : { owner });
  if (operator_uuid !== undefined) {
    if (authority !== undefined || (role !== undefined && role !== 'operator')) return null;
    return withStatus({ operator_uuid });
  }
  if (authority !== undefined) {
    if (role !== undefined && role !== 'reviewer') return null;
    return withStatus({ authority });
  }
  return withStatus(role !== undefined ? { role } : {});
}
