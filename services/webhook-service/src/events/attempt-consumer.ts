import type { Broker } from '@dfc/kit/broker';
import type { Logger } from '@dfc/kit/logging';
import { queueName } from '@dfc/kit/broker';
import type { EventEnvelope } from '@dfc/contracts';
import pLimit from 'p-limit';
import { attemptsDue, carriedMessages, withoutCreated, type AttemptDue } from '../domain/attempt-message.js';
import { ATTEMPT_DUE, ATTEMPTS_DUE, delayQueueName } from '../messaging.js';
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
 * (every replica), a message acked only after its attempts (one, or one
 * event's first ones: `AttemptsDue`) are recorded and their retries are on
 * the broker; a replica dying mid-attempt leaves the message unacked, and the
 * broker hands it to another replica, each delivery read first. `drain()`
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

/** Delay queues on the broker that dead-letter back to the work queue (see domain/delay-queues.ts). */
export function brokerScheduler(broker: Broker): AttemptScheduler {
  return {
    now: async (messages) => {
      const [first] = messages;
      if (first) await broker.publish(messages.length === 1 ? first : attemptsDue(first.operator_uuid, messages));
    },
    later: (message, delayMs) => broker.publishDelayed(queueName(broker.exchangeName, delayQueueName(delayMs)), withoutCreated(message), delayMs, ATTEMPT_DUE),
  };
}
