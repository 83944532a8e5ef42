import { RoutingKeys, type ApiKeyRevoked, type EventEnvelope, type OperatorChanged, type OperatorPasswordChanged, newEvent } from '@dfc/contracts';
import type { OperatorDocument } from '../store/operator-store.js';

type OperatorFacts = Pick<
  OperatorDocument,
  '_id' | 'company_name' | 'email' | 'timezone' | 'exemption_for_ctr' | 'ctr_exemption_number' | 'operator_registration_number'
>;

/** What other services keep of an operator (the flight-request service's projection). */
function operatorChanged(operator: OperatorFacts): OperatorChanged {
  return {
    uuid: operator._id,
    company_name: operator.company_name,
    email: operator.email,
    timezone: operator.timezone,
    exemption_for_ctr: operator.exemption_for_ctr,
    ctr_exemption_number: operator.ctr_exemption_number,
    operator_registration_number: operator.operator_registration_number,
  };
}

export function operatorRegistered(operator: OperatorFacts, requestId?: string): EventEnvelope<OperatorChanged> {
  return newEvent(RoutingKeys.operatorRegistered, operator._id, operatorChanged(operator), requestId);
}

export function operatorUpdated(operator: OperatorFacts, requestId?: string): EventEnvelope<OperatorChanged> {
  return newEvent(RoutingKeys.operatorUpdated, operator._id, operatorChanged(operator), requestId);
}

/** Says only whose password changed: the event never carries the password or its hash. */
export function operatorPasswordChanged(operatorUuid: string, requestId?: string): EventEnvelope<OperatorPasswordChanged> {
  return newEvent(RoutingKeys.operatorPasswordChanged, operatorUuid, { uuid: operatorUuid }, requestId);
}

export function apiKeyRevoked(keyId: string, operatorUuid: string | null, requestId?: string): EventEnvelope<ApiKeyRevoked> {
  return newEvent(RoutingKeys.apiKeyRevoked, operatorUuid, { key_id: keyId }, requestId);
}
