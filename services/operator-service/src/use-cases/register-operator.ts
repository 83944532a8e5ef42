import { randomUUID } from 'node:crypto';
import { hasErrors, mergeFieldErrors, ValidationError } from '@dfc/kit/errors';
import type { OperatorCreate } from '@dfc/contracts';
import { checkRegistration, normaliseEmail, OperatorMessages } from '../domain/operator-rules.js';
import { operatorRegistered } from '../domain/events/operator-events.js';
import type { NewOperator, OperatorDocument } from '../store/operator-store.js';
import type { Caller, UseCaseDeps } from './deps.js';

/**
 * POST /api/operators. Every failing rule is reported at once, the email's
 * uniqueness included; the unique index still decides between concurrent
 * registrations of one email (exactly one wins, the others get the same 422
 * from the store).
 */
export async function registerOperator(deps: UseCaseDeps, body: unknown, caller: Caller): Promise<OperatorDocument> {
  const checked = checkRegistration(body);
  const taken = checked.normalisedEmail !== undefined && (await deps.operators.emailTaken(checked.normalisedEmail));
  const errors = mergeFieldErrors(checked.errors, taken ? { email: [OperatorMessages.emailTaken] } : {});
  if (hasErrors(errors)) throw new ValidationError(errors);

  const operator = await newOperator(deps, checked.value);
  const saved = await deps.operators.insert(operator, [operatorRegistered(operator, caller.requestId)]);
  deps.metrics.registrations.inc();
  return saved;
}

async function newOperator(deps: UseCaseDeps, input: OperatorCreate): Promise<NewOperator> {
  const now = deps.clock();
  return {
    _id: randomUUID(),
    company_name: input.company_name,
    email: input.email,
    email_normalised: normaliseEmail(input.email),
    password_hash: await deps.passwords.hash(input.password),
    phone: input.phone,
    operational_authorisation_number: input.operational_authorisation_number ?? null,
    operator_registration_number: input.operator_registration_number ?? null,
    exemption_for_ctr: input.exemption_for_ctr ?? false,
    ctr_exemption_number: input.ctr_exemption_number ?? null,
    timezone: input.timezone ?? null,
    created_at: now,
    updated_at: now,
  };
}
