import type { ApiKeyListQuery, OperatorApiKeyListQuery } from '@dfc/contracts';
import { keyListFilter } from '../domain/key-list-filter.js';
import type { ApiKeyView } from '../store/api-key-store.js';
import { authoriseKeyOwner } from './authenticate-operator.js';
import type { BasicCredentials, Caller, UseCaseDeps } from './deps.js';

export interface KeyPage {
  items: ApiKeyView[];
  total: number;
}

/** GET /api/operators/{uuid}/api-keys: the operator's keys (metadata only), newest first. */
export async function listOperatorKeys(
  deps: UseCaseDeps,
  uuidText: string,
  credentials: BasicCredentials | undefined,
  query: OperatorApiKeyListQuery,
  caller: Caller,
): Promise<KeyPage> {
  const operatorUuid = await authoriseKeyOwner(deps, uuidText, credentials, caller, false);
  const owner = { operator_uuid: operatorUuid };
  return deps.apiKeys.list(query.status ? { owner, status: query.status } : { owner }, query);
}

/** GET /api/api-keys (admins): every key, filtered. */
export async function listAllKeys(deps: UseCaseDeps, query: ApiKeyListQuery): Promise<KeyPage> {
  const filter = keyListFilter({ ...query, operator_uuid: query.operator_uuid?.toLowerCase() });
  return filter ? deps.apiKeys.list(filter, query) : { items: [], total: 0 };
}
