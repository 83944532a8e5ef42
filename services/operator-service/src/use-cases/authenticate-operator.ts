import { NotFoundError, UnauthenticatedError } from '@dfc/kit/errors';
import { assertIsOperatorOrAdmin } from '../domain/access.js';
import { operatorUuidFrom } from '../domain/ids.js';
import { normaliseEmail } from '../domain/operator-rules.js';
import type { OperatorDocument } from '../store/operator-store.js';
import type { BasicCredentials, Caller, UseCaseDeps } from './deps.js';

/**
 * HTTP Basic login with the operator's email and password. An unknown email
 * costs the same argon2 work as a wrong password and fails the same way, so
 * neither the answer nor its timing tells which emails are registered.
 */
export async function authenticateOperator(deps: UseCaseDeps, credentials: BasicCredentials | undefined): Promise<OperatorDocument> {
  if (!credentials) throw new UnauthenticatedError();
  const operator = await deps.operators.findByNormalisedEmail(normaliseEmail(credentials.email));
  const valid = operator
    ? await deps.passwords.verify(operator.password_hash, credentials.password)
    : await deps.passwords.verifyNothing(credentials.password);
  if (!operator || !valid) throw new UnauthenticatedError();
  if (deps.passwords.needsRehash(operator.password_hash)) return rehashPassword(deps, operator, credentials.password);
  return operator;
}

/**
 * The proven password hashed again with the current parameters. Only while the stored hash is the one just
 * verified (a password change meanwhile wins), with no event and no new `updated_at`: nothing the operator
 * sees has changed.
 */
async function rehashPassword(deps: UseCaseDeps, operator: OperatorDocument, password: string): Promise<OperatorDocument> {
  const verified = operator.password_hash;
  const rehashed = await deps.passwords.hash(password);
  return deps.operators.change(operator._id, (current) =>
    current.password_hash === verified ? { set: { password_hash: rehashed }, events: [] } : null,
  );
}

/**
 * The operator whose keys `/api/operators/{uuid}/api-keys` names, once the
 * caller has shown it may manage them: with `requireBasic`, only the
 * operator's own email and password; otherwise also the operator's own API
 * key or an admin key. Basic credentials, when sent, are always checked.
 * Someone else's uuid is 404, as if it did not exist.
 */
export async function authoriseKeyOwner(
  deps: UseCaseDeps,
  uuidText: string,
  credentials: BasicCredentials | undefined,
  caller: Caller,
  requireBasic: boolean,
): Promise<string> {
  const uuid = operatorUuidFrom(uuidText);
  if (credentials || requireBasic) {
    const operator = await authenticateOperator(deps, credentials);
    if (operator._id !== uuid) throw new NotFoundError();
    return operator._id;
  }
  assertIsOperatorOrAdmin(caller.principal, uuid ?? uuidText);
  if (!uuid || !(await deps.operators.findByUuid(uuid))) throw new NotFoundError();
  return uuid;
}
