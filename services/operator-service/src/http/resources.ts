import type { ApiKeyMetadata, IssuedApiKey, OperatorRecord } from '@dfc/contracts';
import type { ApiKeyView } from '../store/api-key-store.js';
import type { OperatorDocument } from '../store/operator-store.js';
import type { IssuedKey } from '../use-cases/issue-api-key.js';
import { toOffsetTimestamp, toOffsetTimestampOrNull } from '@dfc/contracts';

/** The operator as clients see it (spec §2.1): never the password or its hash. */
export function operatorResource(operator: OperatorDocument): OperatorRecord {
  return {
    uuid: operator._id,
    company_name: operator.company_name,
    email: operator.email,
    phone: operator.phone,
    operational_authorisation_number: operator.operational_authorisation_number,
    operator_registration_number: operator.operator_registration_number,
    exemption_for_ctr: operator.exemption_for_ctr,
    ctr_exemption_number: operator.ctr_exemption_number,
    timezone: operator.timezone,
    created_at: toOffsetTimestamp(operator.created_at),
    updated_at: toOffsetTimestamp(operator.updated_at),
  };
}

/** Key metadata: enough to tell keys apart and see their use, never the key or its digest. */
export function apiKeyResource(key: ApiKeyView): ApiKeyMetadata {
  return {
    id: key._id,
    name: key.name,
    role: key.role,
    operator_uuid: key.operator_uuid,
    authority: key.authority,
    last_four: key.last_four,
    created_at: toOffsetTimestamp(key.created_at),
    last_used_at: toOffsetTimestampOrNull(key.last_used_at),
    revoked_at: toOffsetTimestampOrNull(key.revoked_at),
  };
}

export function issuedKeyResource(issued: IssuedKey): IssuedApiKey {
  return { ...apiKeyResource(issued.record), key: issued.key };
}
