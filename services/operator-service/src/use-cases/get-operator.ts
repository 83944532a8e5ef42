import { NotFoundError } from '@dfc/kit/errors';
import { assertCanReadOperator } from '../domain/access.js';
import { operatorUuidFrom } from '../domain/ids.js';
import type { OperatorDocument } from '../store/operator-store.js';
import type { Caller, UseCaseDeps } from './deps.js';

/** GET /api/operators/{uuid}: the operator itself, reviewers and admins. */
export async function getOperator(deps: UseCaseDeps, uuidText: string, caller: Caller): Promise<OperatorDocument> {
  const uuid = operatorUuidFrom(uuidText);
  assertCanReadOperator(caller.principal, uuid ?? uuidText);
  if (!uuid) throw new NotFoundError();
  const operator = await deps.operators.findByUuid(uuid);
  if (!operator) throw new NotFoundError();
  return operator;
}
