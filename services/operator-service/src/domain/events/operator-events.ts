import {
  newEvent,
  RoutingKeys,
  type ApiKeyRevoked,
  type CredentialChange,
  type EventEnvelope,
  type OperatorChanged,
  type OperatorCredentialsChanged,
  type OperatorPasswordChanged,
} from '@dfc/contracts';

/** The facts of an operator its events carry (the stored operator has them, among others). */
interface OperatorFacts {
  /** The operator's uuid. */
  _id: string;
  company_name: string;
  email: string;
  timezone: string | null;
  exemption_for_ctr: boolean;
  ctr_exemption_number: string | null;
  operator_registration_number: string | null;
}

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

/** The owner's notice of a sensitive change, addressed to the email the account had before it. */
export function operatorCredentialsChanged(
  operatorUuid: string,
  changes: CredentialChange[],
  notifyEmail: string,
  keyId: string | null,
  requestId?: string,
): EventEnvelope<OperatorCredentialsChanged> {
  return newEvent(
    RoutingKeys.operatorCredentialsChanged,
    operatorUuid,
    { uuid: operatorUuid, changes, notify_email: notifyEmail, key_id: keyId },
    requestId,
  );
}

export function apiKeyRevoked(keyId: string, operatorUuid: string | null, requestId?: string): EventEnvelope<ApiKeyRevoked> {
  return newEvent(RoutingKeys.apiKeyRevoked, operatorUuid, { key_id: keyId }, requestId);
}
