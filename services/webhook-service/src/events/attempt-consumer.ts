import type { Broker } from '@dfc/kit/broker';
import type { Logger } from '@dfc/kit/logging';
import { queueName } from '@dfc/kit/broker';
import { GroupedWrites } from '@dfc/kit/db';
import type { EventEnvelope } from '@dfc/contracts';
import pLimit from 'p-limit';
import { attemptsDue, carriedMessages, type AttemptDue } from '../domain/attempt-message.js';
import { ATTEMPT_DUE, ATTEMPTS_DUE, delayQueueName } from '../messaging.js';
import { EVENT_WINDOW } from './event-consumer.js';
import type { AttemptScheduler } from '../use-cases/delivery-deps.js';

export interface AttemptConsumerOptions {
  queue: string;
  /** Attempts under way at once in this replica. */
  prefetch: number;
  log: Logger;
  /** `redelivered`: the broker handed the message over before (it may have been attempted already). */
  attempt: (message: EventEnvelope<AttemptDue>, redelivered: boolean) => Promise<void>;
}

/**
 * The work queue of attempts: one durable quorum queue, competing consumers
 * (every replica), a message acked only after its attempts (one, or the
 * first ones of events fanned out together: `AttemptsDue`) are recorded and
 * their retries are on the broker; a replica dying mid-attempt leaves the
 * message unacked, and the broker hands it to another replica, each delivery
 * read first. `drain()`
 * (shutdown) lets the attempts under way finish and refuses new ones, which
 * the broker then hands to another replica when the connection closes.
 */
export async function consumeAttempts(broker: Broker, options: AttemptConsumerOptions): Promise<{ drain(): Promise<void> }> {
  const running = new Set<Promise<void>>();
  let draining = false;
  // A broker message may carry several attempts (AttemptsDue): the window holds attempts, not messages.
  const window = pLimit(options.prefetch);
  const handle = async (event: EventEnvelope, redelivered: boolean): Promise<void> => {
    const messages = carriedMessages(event);
    if (!messages) {
      options.log.error({ message_id: event.id }, 'malformed attempt message dropped');
      return;
    }
    const attempts = await Promise.allSettled(messages.map((message) => window(() => options.attempt(message, redelivered))));
    const failed = attempts.find((attempt) => attempt.status === 'rejected');
    if (failed) throw failed.reason;
  };
  await broker.subscribe({
    queue: options.queue,
    bindings: [ATTEMPT_DUE, ATTEMPTS_DUE],
    prefetch: options.prefetch,
    handler: (event, raw) => {
      if (draining) return Promise.reject(new Error('shutting down: left to another replica'));
      const attempt = handle(event, raw.fields.redelivered);
      running.add(attempt);
      void attempt.catch(() => undefined).finally(() => running.delete(attempt));
      return attempt;
    },
  });
  return {
    async drain() {
      draining = true;
      await Promise.allSettled([...running]);
    },
  };
}

/**
 * Events whose first messages one broker message carries at most: the whole event window. One message is
 * published at a time (the group commit below), and an event is acked only once its message is confirmed; a
 * message carrying half the window left the other half waiting for the next confirm, so a replica fanned out
 * only half a window of events per confirm round trip.
 */
const EVENTS_PER_MESSAGE = EVENT_WINDOW;

/**
 * The work queue, and delay queues on the broker that dead-letter back to it
 * (see domain/delay-queues.ts). The first messages of events fanned out at
 * the same moment (their deliveries share one insert) share one broker
 * message too: the kit's group commit, with a publish for the write.
 */
export function brokerScheduler(broker: Broker): AttemptScheduler {
  const firstMessages = new GroupedWrites<EventEnvelope<AttemptDue>[]>((events) => publishTogether(broker, events.flat()), EVENTS_PER_MESSAGE);
  return {
    now: async (messages) => {
      if (messages.length > 0) await firstMessages.add(messages);
    },
    later: (message, delayMs) => broker.publishDelayed(queueName(broker.exchangeName, delayQueueName(delayMs)), message, delayMs, ATTEMPT_DUE),
  };
}

/** One message as itself; several as one `AttemptsDue`, naming their operator when they have one in common. */
function publishTogether(broker: Broker, messages: EventEnvelope<AttemptDue>[]): Promise<void> {
  if (messages.length === 1) return broker.publish(messages[0]!);
  const operators = new Set(messages.map((message) => message.operator_uuid));
  return broker.publish(attemptsDue(operators.size === 1 ? messages[0]!.operator_uuid : null, messages));
}
