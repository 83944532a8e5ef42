import { Agent as HttpAgent, request as httpRequest } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
import getRawBody from 'raw-body';
import { ServiceUnavailableError } from '@dfc/kit/errors';
import type { OperatorProjection } from './operator-model.js';
import type { OperatorStore } from './operator-store.js';

/** An operator's facts as they are now: what a screening decision must be made on. */
export interface OperatorFacts {
  /** The operator, or null when there is none; `credentials` is the caller's internal token. */
  current(uuid: string, credentials: string | undefined): Promise<OperatorProjection | null>;
}

const READ_TIMEOUT_MS = 5_000;
/** An operator record is a few hundred bytes: an answer far larger is not operator-service's. */
const MAX_ANSWER_BYTES = 64 * 1024;
/**
 * This side closes a connection idle this long, far sooner than operator-service's keep-alive timeout, so a read
 * is never sent on a connection the server is closing (a reset). Node's Agent takes the server's keep-alive hint
 * only when it is shorter than the Agent's own timeout, and without one keeps idle connections for ever.
 */
const IDLE_CONNECTION_MS = 4_000;

/**
 * Reads the operator from operator-service, the owner of the record, on
 * behalf of the caller (the caller's internal token, so it can read no more
 * than the caller may): a PATCH that answered 200 governs the next screening,
 * and an operator registered while the broker was down is known at once.
 * When operator-service cannot answer, the decision waits (503) rather than
 * being made on facts that may be stale.
 *
 * node:http over kept-alive connections rather than fetch: fetch loads Node's
 * bundled undici, whose HTTP parser is WebAssembly that V8 compiles again as
 * it gets hot, and that compiler's memory stays resident in the process;
 * node:http parses in C.
 */
export class OperatorRegistry implements OperatorFacts {
  private readonly agent: HttpAgent;
  private readonly request: typeof httpRequest;

  constructor(private readonly baseUrl: string) {
    const secure = baseUrl.startsWith('https:');
    const options = { keepAlive: true, timeout: IDLE_CONNECTION_MS };
    this.agent = secure ? new HttpsAgent(options) : new HttpAgent(options);
    this.request = secure ? httpsRequest : httpRequest;
  }

  async current(uuid: string, credentials: string | undefined): Promise<OperatorProjection | null> {
    let answer: Answer;
    try {
      answer = await this.get(`/api/operators/${encodeURIComponent(uuid)}`, credentials);
    } catch {
      throw unavailable();
    }
    if (answer.status === 404 || answer.status === 403) return null;
    if (answer.status !== 200) throw unavailable();
    const data = recordIn(answer.body);
    if (data === undefined) throw unavailable();
    return {
      uuid: data.uuid,
      timezone: data.timezone ?? null,
      exemption_for_ctr: data.exemption_for_ctr === true,
      registration_number: data.operator_registration_number ?? null,
      source_at: new Date(data.updated_at),
    };
  }

  /** One GET, its whole answer within READ_TIMEOUT_MS. */
  private get(path: string, credentials: string | undefined): Promise<Answer> {
    return new Promise<Answer>((resolve, reject) => {
      const request = this.request(
        `${this.baseUrl}${path}`,
        { agent: this.agent, headers: credentials ? { 'X-Internal-Token': credentials } : {}, signal: AbortSignal.timeout(READ_TIMEOUT_MS) },
        (response) =>
          void getRawBody(response, { limit: MAX_ANSWER_BYTES, encoding: 'utf8' }).then(
            (body) => resolve({ status: response.statusCode ?? 0, body }),
            (error: unknown) => {
              // raw-body stops reading past the limit but leaves the connection open: it is not reused.
              response.destroy();
              reject(error);
            },
          ),
      );
      request.on('error', reject);
      request.end();
    });
  }
}

interface Answer {
  status: number;
  body: string;
}

/** The record in a 200's body, or undefined when the body is not one. */
function recordIn(body: string): OperatorRecord | undefined {
  try {
    const { data } = JSON.parse(body) as { data?: OperatorRecord };
    return typeof data?.uuid === 'string' && typeof data.updated_at === 'string' ? data : undefined;
  } catch {
    return undefined;
  }
}

function unavailable(): ServiceUnavailableError {
  return new ServiceUnavailableError('The operator registry is unavailable; try again.');
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
