import type { ChannelModel, ConfirmChannel, GetMessage, MessagePropertyHeaders, Options } from 'amqplib';
import { deadLetterQueue } from './broker.js';

export interface ReplayOptions {
  /** The system's exchange; its dead-letter queue is `<exchange>.dead-letters`. */
  exchange: string;
  /** At most this many messages are looked at (replayed or not). */
  limit: number;
  /** Only list what would be replayed; every message stays where it is. */
  dryRun?: boolean;
  /** Only the messages dead-lettered from this queue (x-death); the others stay. */
  fromQueue?: string;
}

export interface ReplayedMessage {
  messageId: string | undefined;
  type: string | undefined;
  /** The queue that dead-lettered it, why, and how often (its latest x-death entry). */
  fromQueue: string | undefined;
  reason: string | undefined;
  count: number | undefined;
  exchange: string | undefined;
  routingKey: string | undefined;
  outcome: 'replayed' | 'would be replayed' | 'left: other queue' | 'left: no x-death exchange' | 'left: unroutable';
}

export interface ReplayResult {
  replayed: number;
  left: number;
  /** Messages in the dead-letter queue afterwards (not counting ones dead-lettered meanwhile). */
  remaining: number;
  messages: ReplayedMessage[];
}

interface XDeath {
  queue?: string;
  reason?: string;
  count?: number;
  exchange?: string;
  'routing-keys'?: string[];
}

/** The headers RabbitMQ sets when it dead-letters; a replayed message starts without them. */
const DEATH_HEADERS = [
  'x-death',
  'x-first-death-queue',
  'x-first-death-reason',
  'x-first-death-exchange',
  'x-last-death-queue',
  'x-last-death-reason',
  'x-last-death-exchange',
];
export const REPLAYED_HEADER = 'x-dfc-replayed';

/**
 * Moves dead letters back to where they were going: each message from
 * `<exchange>.dead-letters` is published again on the exchange and with the
 * routing key of its latest x-death entry (body and properties unchanged, the
 * death headers dropped, `x-dfc-replayed` counting the replays), mandatory and
 * confirmed, and only then acked from the dead-letter queue: a crash in between
 * leaves a copy in both (consumers are idempotent), never none. What is not
 * replayed (dry run, another queue, no exchange to go back to, no queue bound
 * for its key) is held until the end, then returned to the dead-letter queue,
 * so a message is looked at once per run.
 */
export async function replayDeadLetters(connection: ChannelModel, options: ReplayOptions): Promise<ReplayResult> {
  const queue = deadLetterQueue(options.exchange);
  const channel: ConfirmChannel = await connection.createConfirmChannel();
  // One message is published at a time and confirmed before the next: a return in between is its.
  const returns = { count: 0 };
  channel.on('return', () => returns.count++);
  const messages: ReplayedMessage[] = [];
  let replayed = 0;
  let left = 0;
  try {
    for (let looked = 0; looked < options.limit; looked++) {
      const message = await channel.get(queue, { noAck: false });
      if (message === false) break;
      const death = (message.properties.headers?.['x-death'] as XDeath[] | undefined)?.[0];
      const entry: ReplayedMessage = {
        messageId: message.properties.messageId as string | undefined,
        type: message.properties.type as string | undefined,
        fromQueue: death?.queue,
        reason: death?.reason,
        count: death?.count,
        exchange: death?.exchange,
        routingKey: death?.['routing-keys']?.[0],
        outcome: 'replayed',
      };
      messages.push(entry);
      if (options.fromQueue !== undefined && death?.queue !== options.fromQueue) entry.outcome = 'left: other queue';
      // The default exchange ('') is how webhook-service fills its delay queues, which never dead-letter here.
      else if (!entry.exchange || entry.routingKey === undefined) entry.outcome = 'left: no x-death exchange';
      else if (options.dryRun) entry.outcome = 'would be replayed';
      else if (!(await republish(channel, message, entry.exchange, entry.routingKey, returns))) entry.outcome = 'left: unroutable';
      if (entry.outcome === 'replayed') {
        channel.ack(message);
        replayed++;
      } else {
        left++;
      }
    }
    // Everything not replayed goes back, in one go, after the last get: none is looked at twice.
    if (left > 0) channel.nackAll(true);
    const { messageCount } = await channel.checkQueue(queue);
    return { replayed, left, remaining: messageCount, messages };
  } finally {
    await channel.close().catch(() => undefined);
  }
}

async function republish(
  channel: ConfirmChannel,
  message: GetMessage,
  exchange: string,
  routingKey: string,
  returns: { count: number },
): Promise<boolean> {
  // amqplib types a received message's properties as `any`: they are the options it was published with.
  const properties = message.properties as Pick<
    Options.Publish,
    'contentType' | 'contentEncoding' | 'messageId' | 'type' | 'correlationId' | 'timestamp' | 'appId'
  >;
  const headers: MessagePropertyHeaders = { ...message.properties.headers };
  for (const name of DEATH_HEADERS) delete headers[name];
  headers[REPLAYED_HEADER] = Number(headers[REPLAYED_HEADER] ?? 0) + 1;
  const before = returns.count;
  await new Promise<void>((resolve, reject) => {
    channel.publish(
      exchange,
      routingKey,
      message.content,
      {
        mandatory: true,
        persistent: true,
        headers,
        ...(properties.contentType ? { contentType: properties.contentType } : {}),
        ...(properties.contentEncoding ? { contentEncoding: properties.contentEncoding } : {}),
        ...(properties.messageId ? { messageId: properties.messageId } : {}),
        ...(properties.type ? { type: properties.type } : {}),
        ...(properties.correlationId ? { correlationId: properties.correlationId } : {}),
        ...(properties.timestamp ? { timestamp: properties.timestamp } : {}),
        ...(properties.appId ? { appId: properties.appId } : {}),
      },
      (error) => (error ? reject(error) : resolve()),
    );
  });
  // A mandatory message no queue takes comes back (basic.return) before its confirm.
  return returns.count === before;
}
