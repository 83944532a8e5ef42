import type { EventEnvelope, OperatorChanged } from '@dfc/contracts';
import type { OperatorStore } from '../store/operator-store.js';

/** operator.registered / operator.updated → the operator projection (timezone, CTR exemption, registration number). */
export async function applyOperatorChange(operators: OperatorStore, event: EventEnvelope<OperatorChanged>): Promise<void> {
  await operators.apply({
    uuid: event.data.uuid,
    timezone: event.data.timezone,
    exemption_for_ctr: event.data.exemption_for_ctr,
    registration_number: event.data.operator_registration_number ?? null,
    source_at: new Date(event.occurred_at),
  });
}
