import type { ApiKeyListQuery, OperatorApiKeyListQuery } from '@dfc/contracts';
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
  return deps.apiKeys.list({ operator_uuid: operatorUuid, status: query.status }, query);
}

/** GET /api/api-keys (admins): every key, filtered. */
export function listAllKeys(deps: UseCaseDeps, query: ApiKeyListQuery): Promise<KeyPage> {
  const { status, role, operator_uuid, authority } = query;
  return deps.apiKeys.list({ status, role, operator_uuid: operator_uuid?.toLowerCase(), authority }, query);
}
