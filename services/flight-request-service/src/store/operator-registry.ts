import { ServiceUnavailableError } from '@dfc/kit/errors';
import type { OperatorProjection } from './operator-model.js';
import type { OperatorStore } from './operator-store.js';

/** An operator's facts as they are now: what a screening decision must be made on. */
export interface OperatorFacts {
  /** The operator, or null when there is none; `credentials` is the caller's internal token. */
  current(uuid: string, credentials: string | undefined): Promise<OperatorProjection | null>;
}

const READ_TIMEOUT_MS = 5_000;

/**
 * Reads the operator from operator-service, the owner of the record, on
 * behalf of the caller (the caller's internal token, so it can read no more
 * than the caller may): a PATCH that answered 200 governs the next screening,
 * and an operator registered while the broker was down is known at once.
 * When operator-service cannot answer, the decision waits (503) rather than
 * being made on facts that may be stale.
 */
export class OperatorRegistry implements OperatorFacts {
  constructor(private readonly baseUrl: string) {}

  async current(uuid: string, credentials: string | undefined): Promise<OperatorProjection | null> {
    let response: Response;
    try {
      response = await fetch(`${this.baseUrl}/api/operators/${encodeURIComponent(uuid)}`, {
        headers: credentials ? { 'X-Internal-Token': credentials } : {},
        signal: AbortSignal.timeout(READ_TIMEOUT_MS),
      });
    } catch {
      throw new ServiceUnavailableError('The operator registry is unavailable; try again.');
    }
    if (response.status === 404 || response.status === 403) return null;
    if (response.status !== 200) throw new ServiceUnavailableError('The operator registry is unavailable; try again.');
    const { data } = (await response.json()) as { data: OperatorRecord };
    return {
      uuid: data.uuid,
      timezone: data.timezone ?? null,
      exemption_for_ctr: data.exemption_for_ctr === true,
      registration_number: data.operator_registration_number ?? null,
      source_at: new Date(data.updated_at),
    };
  }
}

interface OperatorRecord {
  uuid: string;
  timezone?: string | null;
  exemption_for_ctr?: boolean;
  operator_registration_number?: string | null;
  updated_at: string;
}

/** The event-fed projection as the facts: for a service run without operator-service (its own tests). */
export function projectedFacts(operators: OperatorStore): OperatorFacts {
  return { current: (uuid) => operators.find(uuid) };
}
