import { flightRequestBody, type GatewayClient, type RegisteredOperator } from '../e2e/src/client.js';
import { load } from './support.js';

/**
 * Requests a second of each part of the steady load, a busy hour's mix well under what the machine takes; lists one
 * at a time, each LIST_PAUSE_SECONDS after the last answer, since on the local engine a list reads the whole
 * collection, which the steady submissions keep growing.
 */
export const STEADY_RATES = { reads: 40, submissions: 5, deliveries: 20 } as const;
const LIST_PAUSE_SECONDS = 5;

export interface Answered {
  answered: number;
  failed: number;
}

export interface SteadyTraffic {
  reads: Answered;
  submissions: Answered;
  lists: Answered;
}

/**
 * `seconds` of an operator's traffic through the gateway, all parts at once: reads of its record and submissions at
 * STEADY_RATES (each submission `lon` east, so the caller decides whether zones screen it), and its first list page.
 * Answers other than 2xx are counted, not fatal: the load is there for the memory it makes the services hold.
 */
export async function steadyTraffic(client: GatewayClient, operator: RegisteredOperator, seconds: number, lon: number): Promise<SteadyTraffic> {
  const paced = async (path: string, perSecond: number, body?: string): Promise<Answered> => {
    const target = {
      url: `${client.baseUrl}${path}`,
      method: body === undefined ? ('GET' as const) : ('POST' as const),
      headers: { 'x-api-key': operator.key, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      ...(body === undefined ? {} : { body }),
      overallRate: perSecond,
    };
    const result = await load(target, 2, seconds);
    return { answered: result['2xx'], failed: result.non2xx + result.errors };
  };
  const [reads, submissions, lists] = await Promise.all([
    paced(`/api/operators/${operator.uuid}`, STEADY_RATES.reads),
    paced('/api/flight-requests', STEADY_RATES.submissions, JSON.stringify(flightRequestBody(operator, {}, lon))),
    listsFor(client, operator.key, seconds),
  ]);
  return { reads, submissions, lists };
}

/** "N reads, N submissions, N lists", with what was not answered 2xx. */
export function describeTraffic({ reads, submissions, lists }: SteadyTraffic): string {
  const part = (name: string, { answered, failed }: Answered) => `${answered} ${name}${failed > 0 ? ` (and ${failed} not answered 2xx)` : ''}`;
  return `${part('reads', reads)}, ${part('submissions', submissions)}, ${part('lists', lists)}`;
}

/** The operator's first page, one list at a time for `seconds`, each LIST_PAUSE_SECONDS after the last answer. */
async function listsFor(client: GatewayClient, key: string, seconds: number): Promise<Answered> {
  const counted: Answered = { answered: 0, failed: 0 };
  const deadline = performance.now() + seconds * 1000;
  while (performance.now() < deadline) {
    const answer = await client.send('GET', '/api/flight-requests?per_page=15', { key }).catch(() => undefined);
    if (answer !== undefined && answer.status >= 200 && answer.status < 300) counted.answered++;
    else counted.failed++;
    await new Promise((resolve) => setTimeout(resolve, LIST_PAUSE_SECONDS * 1000));
  }
  return counted;
}
