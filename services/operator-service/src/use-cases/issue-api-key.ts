import { hasErrors, ValidationError } from '@dfc/kit/errors';
import { lastFourOf } from '../domain/api-key.js';
import { checkOperatorKey, checkStaffKey } from '../domain/key-requests.js';
import { digestApiKey, generateApiKey } from '../security/api-key-secrets.js';
import type { ApiKeyView, NewApiKey } from '../store/api-key-store.js';
import { authoriseKeyOwner } from './authenticate-operator.js';
import type { BasicCredentials, Caller, UseCaseDeps } from './deps.js';

/** A freshly issued key: its record and the key itself, which is shown this once and never stored. */
export interface IssuedKey {
  record: ApiKeyView;
  key: string;
}

/** POST /api/operators/{uuid}/api-keys, with the operator's email and password (HTTP Basic). */
export async function issueOperatorKey(
  deps: UseCaseDeps,
  uuidText: string,
  credentials: BasicCredentials | undefined,
  body: unknown,
  caller: Caller,
): Promise<IssuedKey> {
  const operatorUuid = await authoriseKeyOwner(deps, uuidText, credentials, caller, true);
  const checked = checkOperatorKey(body);
  if (hasErrors(checked.errors)) throw new ValidationError(checked.errors);
  return issue(deps, { role: 'operator', operator_uuid: operatorUuid, authority: null, name: checked.value.name ?? null });
}

/** POST /api/api-keys (admins): reviewer keys bound to one authority, and admin keys. */
export async function issueStaffKey(deps: UseCaseDeps, body: unknown): Promise<IssuedKey> {
  const checked = checkStaffKey(body);
  if (hasErrors(checked.errors)) throw new ValidationError(checked.errors);
  const { role, authority, name } = checked.value;
  return issue(deps, { role, operator_uuid: null, authority: authority ?? null, name: name ?? null });
}

async function issue(deps: UseCaseDeps, owner: Pick<NewApiKey, 'role' | 'operator_uuid' | 'authority' | 'name'>): Promise<IssuedKey> {
  const { id, key } = generateApiKey();
  const record = await deps.apiKeys.insert({ _id: id, digest: digestApiKey(key), last_four: lastFourOf(key), created_at: deps.clock(), ...owner });
  deps.metrics.keysIssued.inc({ role: owner.role });
  return { record, key };
}
