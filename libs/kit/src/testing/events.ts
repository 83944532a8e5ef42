import { connect } from 'amqplib';
import type { EventEnvelope } from '@dfc/contracts';
import { waitFor } from './wait-for.js';

export interface CapturedEvents {
  readonly events: EventEnvelope[];
  /** Resolves with the first captured event matching `predicate`. */
  next(predicate: (event: EventEnvelope) => boolean, timeoutMs?: number): Promise<EventEnvelope>;
  close(): Promise<void>;
}

/**
 * Binds a private queue to an exchange and records what is published there,
 * so a test can assert that an event really reached the broker.
 */
export async function captureEvents(amqpUrl: string, exchange: string, bindings: string[] = ['#']): Promise<CapturedEvents> {
  const connection = await connect(amqpUrl);
  const channel = await connection.createChannel();
  await channel.assertExchange(exchange, 'topic', { durable: true });
  const { queue } = await channel.assertQueue('', { exclusive: true, autoDelete: true });
  for (const key of bindings) await channel.bindQueue(queue, exchange, key);
  const events: EventEnvelope[] = [];
  await channel.consume(
    queue,
    (message) => {
      if (message) events.push(JSON.parse(message.content.toString('utf8')) as EventEnvelope);
    },
    { noAck: true },
  );
  return {
    events,
    next: (predicate, timeoutMs = 5000) => waitFor(() => events.find(predicate), timeoutMs),
    close: async () => {
      await connection.close().catch(() => undefined);
    },
  };
}
