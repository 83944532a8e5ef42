import { setTimeout as sleep } from 'node:timers/promises';
import { flightRequestBody, type Answer, type GatewayClient, type RegisteredOperator } from '../e2e/src/client.js';
import { load } from './support.js';

/**
 * Requests a second of each part of the steady load, a busy hour's mix well under what the machine takes; lists one
 * at a time, each LIST_PAUSE_SECONDS after the last answer, since on the local engine a list reads the whole
 * collection, which the steady submissions keep growing.
 */
export const STEADY_RATES = { reads: 40, submissions: 5, deliveries: 20 } as const;
const LIST_PAUSE_SECONDS = 5;
/** How long the reviewer waits between two looks at its queue. */
const REVIEW_PAUSE_SECONDS = 2;
/**
 * Requests of one part of the mixed load unanswered at once at most: past it the part waits, so a system that falls
 * behind gets fewer requests, which the counts show, rather than a pile of them.
 */
const MAX_IN_FLIGHT = 8;
/** Approved requests kept for the reads and cancellations of the mixed load (the newest). */
const KEPT_REQUESTS = 1000;

/** A part's answers as they come: those the flow expects, and the others by what they were. */
export interface Answered {
  answered: number;
  failed: number;
  /** What the failed ones got instead: a status with its error's message (`503 "…"`; a submission's with the status it was given, `201 Rejected`) or an error's name. */
  failures: Map<string, number>;
}

export function noAnswers(): Answered {
  return { answered: 0, failed: 0, failures: new Map() };
}

function fail(part: Answered, why: string): void {
  part.failed++;
  part.failures.set(why, (part.failures.get(why) ?? 0) + 1);
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
  const traffic: SteadyTraffic = { reads: noAnswers(), submissions: noAnswers(), lists: noAnswers() };
  const submission = JSON.stringify(flightRequestBody(operator, {}, lon));
  await Promise.all([
    paced(client, operator.key, `/api/operators/${operator.uuid}`, STEADY_RATES.reads, seconds, traffic.reads),
    paced(client, operator.key, '/api/flight-requests', STEADY_RATES.submissions, seconds, traffic.submissions, submission),
    listsFor(client, operator.key, seconds, traffic.lists),
  ]);
  return traffic;
}

/** What the parts of a load are called in its description. */
const PART_NAMES: Record<string, string> = {
  reads: 'reads',
  submissions: 'submissions',
  lists: 'lists',
  forReview: 'submissions for review',
  reviews: 'looks at the review queue',
  decisions: 'decisions',
  gets: 'gets',
  cancels: 'cancellations',
};

/** "N reads, N submissions, N lists, …", with what was not answered as the flow expects. */
export function describeTraffic(traffic: SteadyTraffic | MixedTraffic): string {
  return Object.entries(traffic)
    .map(([name, { answered, failed, failures }]: [string, Answered]) => {
      const why = [...failures].map(([what, count]) => `${what} ×${count}`).join(', ');
      return `${answered} ${PART_NAMES[name] ?? name}${failed > 0 ? ` (and ${failed} not answered as expected: ${why})` : ''}`;
    })
    .join(', ');
}

/** `perSecond` requests to `path` for `seconds` on two connections, each answer counted in `part` as it comes. */
async function paced(
  client: GatewayClient,
  key: string,
  path: string,
  perSecond: number,
  seconds: number,
  part: Answered,
  body?: string,
): Promise<void> {
  const target = {
    url: `${client.baseUrl}${path}`,
    method: body === undefined ? ('GET' as const) : ('POST' as const),
    headers: { 'x-api-key': key, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    ...(body === undefined ? {} : { body }),
    overallRate: perSecond,
  };
  await load(
    target,
    2,
    seconds,
    (_time, status) => (status >= 200 && status < 300 ? part.answered++ : fail(part, String(status))),
    (error: Error) => fail(part, error.name),
  );
}

/** The operator's first page, one list at a time for `seconds`, each LIST_PAUSE_SECONDS after the last answer. */
async function listsFor(client: GatewayClient, key: string, seconds: number, part: Answered): Promise<void> {
  const deadline = performance.now() + seconds * 1000;
  while (performance.now() < deadline) {
    await counted(
      part,
      () => client.send('GET', '/api/flight-requests?per_page=15', { key }),
      (answer) => unless2xx(answer),
    );
    await sleep(LIST_PAUSE_SECONDS * 1000);
  }
}

/** Requests a second of each part of the mixed load. */
export interface MixRates {
  reads: number;
  /** Submissions screening approves. */
  approved: number;
  /** Submissions into the review zone, each left Pending with an item for the reviewer. */
  forReview: number;
  /** Reads of an approved request. */
  gets: number;
  /** Cancellations of an approved request. */
  cancels: number;
}

export interface Mix {
  operator: RegisteredOperator;
  /** A reviewer of the review zone's authority, who approves every item it is given. */
  reviewerKey: string;
  rates: MixRates;
  /** The n-th approved submission's square: outside every zone, and one of many, so that the claims spread over the ledger's cells. */
  approvedCorner(n: number): [number, number];
  /** The n-th submission's square inside the review zone. */
  reviewCorner(n: number): [number, number];
}

export interface MixedTraffic extends SteadyTraffic {
  forReview: Answered;
  /** The reviewer's looks at its queue. */
  reviews: Answered;
  decisions: Answered;
  gets: Answered;
  cancels: Answered;
}

/**
 * A long mixed load through the gateway, every flow an operator and a reviewer take, all at once: the operator's
 * reads of its record (at `rates.reads`), submissions screening approves and submissions left for review (each at its
 * rate, each on a square of its own), reads and cancellations of its approved requests (the newest first, so none
 * has begun), its first list page (as `steadyTraffic`), and a reviewer approving every item of its queue. Each
 * answer is counted in `traffic` as it comes (a submission counts as expected only with the status its square
 * should get); `done` settles when `seconds` are over and the last answers are in.
 */
export function mixedTraffic(client: GatewayClient, mix: Mix, seconds: number): { traffic: MixedTraffic; done: Promise<void> } {
  const { operator, rates } = mix;
  const key = operator.key;
  const traffic: MixedTraffic = {
    reads: noAnswers(),
    submissions: noAnswers(),
    lists: noAnswers(),
    forReview: noAnswers(),
    reviews: noAnswers(),
    decisions: noAnswers(),
    gets: noAnswers(),
    cancels: noAnswers(),
  };
  const approved: string[] = [];
  const submit = (part: Answered, [lon, lat]: [number, number], expected: 'Approved' | 'Pending') =>
    counted(
      part,
      () =>
        client.send<{ data?: { uuid: string; status: string } }>('POST', '/api/flight-requests', {
          key,
          body: flightRequestBody(operator, {}, lon, lat),
        }),
      (answer) =>
        answer.status === 201 && answer.body.data?.status === expected ? undefined : `${answer.status} ${answer.body.data?.status ?? ''}`.trim(),
    ).then((answer) => {
      const uuid = answer?.body.data?.uuid;
      if (uuid !== undefined && expected === 'Approved') approved.push(uuid);
      if (approved.length > KEPT_REQUESTS) approved.shift();
    });
  const get = async () => {
    const uuid = approved[Math.floor(Math.random() * approved.length)];
    if (uuid !== undefined) await counted(traffic.gets, () => client.send('GET', `/api/v1/flight-requests/${uuid}`, { key }));
  };
  const cancel = async () => {
    const uuid = approved.pop();
    if (uuid !== undefined)
      await counted(traffic.cancels, () => client.send('DELETE', `/api/flight-requests/${uuid}`, { key, body: { reason: 'Soak' } }));
  };
  const done = Promise.all([
    paced(client, key, `/api/operators/${operator.uuid}`, rates.reads, seconds, traffic.reads),
    every(rates.approved, seconds, (n) => submit(traffic.submissions, mix.approvedCorner(n), 'Approved')),
    every(rates.forReview, seconds, (n) => submit(traffic.forReview, mix.reviewCorner(n), 'Pending')),
    every(rates.gets, seconds, get),
    every(rates.cancels, seconds, cancel),
    review(client, mix.reviewerKey, seconds, traffic),
    listsFor(client, key, seconds, traffic.lists),
  ]).then(() => undefined);
  return { traffic, done };
}

/**
 * The reviewer for `seconds`: its queue's first page, every item on it approved, again REVIEW_PAUSE_SECONDS after.
 * An item it decided is never decided again: the queue is a projection, which may list it a moment longer.
 */
async function review(
  client: GatewayClient,
  reviewerKey: string,
  seconds: number,
  traffic: Pick<MixedTraffic, 'reviews' | 'decisions'>,
): Promise<void> {
  const decided = new Set<string>();
  const deadline = performance.now() + seconds * 1000;
  while (performance.now() < deadline) {
    const queue = await counted(traffic.reviews, () =>
      client.send<{ data?: Array<{ id: string }> }>('GET', '/api/reviews?per_page=50', { key: reviewerKey }),
    );
    for (const { id } of queue?.body.data ?? []) {
      if (decided.has(id) || performance.now() >= deadline) continue;
      decided.add(id);
      await counted(traffic.decisions, () =>
        client.send('POST', `/api/reviews/${id}/decision`, { key: reviewerKey, body: { decision: 'approve', reason: 'Soak' } }),
      );
    }
    await sleep(REVIEW_PAUSE_SECONDS * 1000);
  }
}

/**
 * Starts `task(n)` every 1/`perSecond` s for `seconds`, with at most MAX_IN_FLIGHT of them unsettled at once; settles
 * when the last one has.
 */
async function every(perSecond: number, seconds: number, task: (n: number) => Promise<void>): Promise<void> {
  if (perSecond <= 0) return;
  const started = performance.now();
  const inFlight = new Set<Promise<void>>();
  for (let n = 0; n * (1000 / perSecond) < seconds * 1000; n++) {
    await sleep(Math.max(0, started + n * (1000 / perSecond) - performance.now()));
    while (inFlight.size >= MAX_IN_FLIGHT) await Promise.race(inFlight);
    const running: Promise<void> = task(n).finally(() => inFlight.delete(running));
    inFlight.add(running);
  }
  await Promise.all(inFlight);
}

function unless2xx(answer: Answer): string | undefined {
  return answer.status >= 200 && answer.status < 300 ? undefined : String(answer.status);
}

/** What was wrong, with the error's message when the answer carries one: it says which part refused (`503 "…"`). */
function withMessage(why: string, answer: Answer<unknown>): string {
  const message: unknown = answer.status >= 400 ? (answer.body as { message?: unknown } | undefined)?.message : undefined;
  return typeof message === 'string' ? `${why} "${message.slice(0, 120)}"` : why;
}

/**
 * One request, its answer counted in `part`: `wrong` says what was wrong with it (by default anything but a 200), or
 * nothing when it is what the flow expects. The answer when it was; a request that failed is counted by its error.
 */
async function counted<T>(
  part: Answered,
  send: () => Promise<Answer<T>>,
  wrong: (answer: Answer<T>) => string | undefined = (answer) => (answer.status === 200 ? undefined : String(answer.status)),
): Promise<Answer<T> | undefined> {
  try {
    const answer = await send();
    const why = wrong(answer);
    if (why === undefined) {
      part.answered++;
      return answer;
    }
    fail(part, withMessage(why, answer));
  } catch (error) {
    fail(part, error instanceof Error ? error.name : String(error));
  }
  return undefined;
}
