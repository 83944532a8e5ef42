import type { Broker } from '@dfc/kit/broker';
import type { Logger } from '@dfc/kit/logging';
import { queueName } from '@dfc/kit/broker';
import type { EventEnvelope } from '@dfc/contracts';
import { isAttemptDue, withoutCreated, type AttemptDue } from '../domain/attempt-message.js';
import { ATTEMPT_DUE, delayQueueName } from '../messaging.js';
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
 * (every replica), a message acked only after its attempt is recorded and
 * its retry (if any) is on the broker; a replica dying mid-attempt leaves the
 * message unacked, and the broker hands it to another replica. `drain()`
 * (shutdown) lets the attempts under way finish and refuses new ones, which
 * the broker then hands to another replica when the connection closes.
 */
export async function consumeAttempts(broker: Broker, options: AttemptConsumerOptions): Promise<{ drain(): Promise<void> }> {
  const running = new Set<Promise<void>>();
  let draining = false;
  const handle = async (event: EventEnvelope, redelivered: boolean): Promise<void> => {
    if (!isAttemptDue(event.data)) {
      options.log.error({ message_id: event.id }, 'malformed attempt message dropped');
      return;
    }
    await options.attempt(event as EventEnvelope<AttemptDue>, redelivered);
  };
  await broker.subscribe({
    queue: options.queue,
    bindings: [ATTEMPT_DUE],
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
    now: (message) => broker.publish(message),
    later: (message, delayMs) => broker.publishDelayed(queueName(broker.exchangeName, delayQueueName(delayMs)), withoutCreated(message), delayMs, ATTEMPT_DUE),
  };
}
