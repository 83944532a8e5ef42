import { connect, type Channel, type ChannelModel, type ConfirmChannel, type ConsumeMessage } from 'amqplib';
import type { Logger } from 'pino';
import { DEFAULT_EXCHANGE, type EventEnvelope } from '@dfc/contracts';
import { ServiceUnavailableError } from '../errors.js';

export type EventHandler = (event: EventEnvelope, message: ConsumeMessage) => Promise<void>;

/** A durable, shared work queue (one consumer group per service). */
export interface QueueSubscription {
  queue: string;
  bindings: string[];
  handler: EventHandler;
  prefetch?: number;
  /** A per-replica broadcast queue (e.g. cache invalidation): exclusive, removed with the connection. */
  broadcast?: boolean;
  /**
   * How long the handler may hold one message before the consumer counts as stalled
   * (`stalledConsumers`); default STALLED_AFTER_MS. Longer than the slowest legitimate handling.
   */
  stalledAfterMs?: number;
}

/** Redeliveries before a message that keeps failing is dead-lettered. */
const DELIVERY_LIMIT = 10;
const REQUEUE_DELAY_MS = 500;
/** The pace of reconnecting, and of reopening a channel the broker closed. */
const RETRY_INITIAL_DELAY_MS = 200;
const RETRY_MAX_DELAY_MS = 5000;
/**
 * A handler holding one message this long is taken to hang: its channel stays open and its
 * consumer registered, so the broker keeps handing it the queue's share of messages it never
 * finishes, while the other replicas' consumers could.
 */
const STALLED_AFTER_MS = 5 * 60_000;

/**
 * RabbitMQ as every service uses it: one topic exchange, publishing on a
 * confirm channel (a publish resolves only when the broker has the message),
 * durable quorum queues whose poison messages go to a dead-letter queue, and
 * automatic reconnection that re-declares the topology and the consumers. A
 * channel the broker closes on a connection that stays up (an operation it
 * refused, a consumer it cancelled) is reopened on that connection, as it was
 * declared.
 */
export class Broker {
  private publishChannel: ConfirmChannel | undefined;
  /** The publishing channel's first reopen attempt, which a publish waits for rather than fail at once. */
  private publishReopening: Promise<void> | undefined;
  private readonly subscriptions: QueueSubscription[] = [];
  /** The subscriptions with a consumer on an open channel now. */
  private readonly attached = new Set<QueueSubscription>();
  private readonly consumerChannels: Channel[] = [];
  /** When each message now in a handler's hands was handed over, per subscription, oldest first. */
  private readonly inHand = new Map<QueueSubscription, Set<{ since: number }>>();
  private model: ChannelModel | undefined;
  private connected = false;
  private closed = false;

  private constructor(
    private readonly exchange: string,
    private readonly log: Logger,
  ) {}

  static async connect(url: string, exchange: string, log: Logger): Promise<Broker> {
    const broker = new Broker(exchange, log);
    const connection = await connect(url, {
      recovery: {
        initialDelay: RETRY_INITIAL_DELAY_MS,
        maxDelay: RETRY_MAX_DELAY_MS,
        initialMaxRetries: 60,
        setup: (model: ChannelModel) => broker.setup(model),
      },
    });
    connection.on('disconnect', (error: Error) => {
      broker.connected = false;
      broker.publishChannel = undefined;
      log.warn({ err: error.message }, 'broker disconnected');
    });
    connection.on('error', (error: Error) => log.warn({ err: error.message }, 'broker connection error'));
    broker.close = async () => {
      broker.closed = true;
      broker.connected = false;
      // Closing the consumer channels first waits for the broker to take every ack already sent;
      // closing only the connection can lose the last ones (their messages would be redelivered).
      await Promise.allSettled(broker.consumerChannels.splice(0).map((channel) => channel.close()));
      await connection.close().catch(() => undefined);
    };
    return broker;
  }

  /** Replaced in `connect` with one that closes the connection. */
  close: () => Promise<void> = () => Promise.resolve();

  isConnected(): boolean {
    return this.connected;
  }

  /**
   * Whether the channels of the connection are all open: the publishing one and a consumer for
   * every subscription. False from the moment the broker closes one or cancels a consumer until it
   * is reopened, and while there is no connection.
   */
  channelsOpen(): boolean {
    return this.publishChannel !== undefined && this.subscriptions.every((subscription) => this.attached.has(subscription));
  }

  /**
   * The queues whose handler has held a message past its subscription's `stalledAfterMs`: a
   * consumer that is attached but no longer finishes what it takes.
   */
  stalledConsumers(now = Date.now()): string[] {
    const stalled: string[] = [];
    for (const [subscription, held] of this.inHand) {
      const oldest = held.values().next().value;
      if (oldest && now - oldest.since > (subscription.stalledAfterMs ?? STALLED_AFTER_MS)) stalled.push(subscription.queue);
    }
    return stalled;
  }

  get exchangeName(): string {
    return this.exchange;
  }

  /** The durable queues this broker declared for its subscriptions (broadcast queues go with the connection). */
  durableQueues(): string[] {
    return this.subscriptions.filter((subscription) => !subscription.broadcast).map((subscription) => subscription.queue);
  }

  /** Resolves once the broker has confirmed the message; throws 503 when it cannot. */
  async publish(event: EventEnvelope): Promise<void> {
    const channel = await this.publishingChannel();
    const body = Buffer.from(JSON.stringify(event));
    await new Promise<void>((resolve, reject) => {
      channel.publish(
        this.exchange,
        event.type,
        body,
        { persistent: true, contentType: 'application/json', messageId: event.id, type: event.type },
        (error) => (error ? reject(error) : resolve()),
      );
    });
  }

  /**
   * Holds `event` in a durable delay queue for `delayMs`, after which the
   * broker dead-letters it to `routingKey` on the exchange (at a consumer's
   * work queue). The queue is a quorum queue, replicated over the broker's
   * nodes, so a wait survives the loss of one; its dead-lettering is
   * at-least-once (the broker keeps the message until the work queue has it,
   * which needs `reject-publish` overflow). The queue's own TTL is the delay,
   * so every message in it expires in arrival order; it removes itself once it
   * has stood unused for twice its delay plus an hour, by which time every
   * message in it has left. It is declared on every call (idempotent): the
   * declaration renews that lease, which a publish alone does not, and a
   * message sent to a queue that has just removed itself would be dropped
   * without a word.
   */
  async publishDelayed(queue: string, event: EventEnvelope, delayMs: number, routingKey: string): Promise<void> {
    const channel = await this.publishingChannel();
    await channel.assertQueue(queue, {
      durable: true,
      arguments: delayQueueArguments(this.exchange, delayMs, routingKey),
    });
    const body = Buffer.from(JSON.stringify(event));
    await new Promise<void>((resolve, reject) => {
      channel.sendToQueue(queue, body, { persistent: true, contentType: 'application/json', messageId: event.id, type: event.type }, (error) =>
        error ? reject(error) : resolve(),
      );
    });
  }

  /** Registers a consumer; it is (re)started on every (re)connection. */
  async subscribe(subscription: QueueSubscription): Promise<void> {
    this.subscriptions.push(subscription);
    if (this.connected && this.model) await this.startConsumer(this.model, subscription);
  }

  private async setup(model: ChannelModel): Promise<void> {
    this.model = model;
    model.once('close', () => {
      if (this.model === model) this.model = undefined;
    });
    await this.openPublishChannel(model);
    for (const subscription of this.subscriptions) await this.startConsumer(model, subscription);
    this.connected = true;
    this.log.info({ exchange: this.exchange }, 'broker connected');
  }

  private async publishingChannel(): Promise<ConfirmChannel> {
    await this.publishReopening;
    const channel = this.publishChannel;
    if (!channel || !this.connected) throw new ServiceUnavailableError('Message broker unavailable.');
    return channel;
  }

  private async openPublishChannel(model: ChannelModel): Promise<void> {
    const channel = await model.createConfirmChannel();
    channel.on('error', (error: Error) => this.log.warn({ err: error.message }, 'broker closed the publishing channel'));
    channel.on('close', () => {
      if (this.publishChannel !== channel) return;
      this.publishChannel = undefined;
      this.publishReopening = this.reopen(model, 'publishing', () => this.openPublishChannel(model));
    });
    try {
      // Declared again on a reopened channel too: the broker may have closed the last one for a missing exchange.
      await assertTopology(channel, this.exchange);
    } catch (error) {
      await channel.close().catch(() => undefined);
      throw error;
    }
    this.publishChannel = channel;
  }

  private async startConsumer(model: ChannelModel, subscription: QueueSubscription): Promise<void> {
    const channel = await model.createChannel();
    this.consumerChannels.push(channel);
    let consuming = false;
    channel.on('error', (error: Error) => this.log.warn({ err: error.message, queue: subscription.queue }, 'broker closed a consumer channel'));
    channel.on('close', () => {
      const index = this.consumerChannels.indexOf(channel);
      if (index >= 0) this.consumerChannels.splice(index, 1);
      if (!consuming) return;
      consuming = false;
      this.attached.delete(subscription);
      void this.reopen(model, subscription.queue, () => this.startConsumer(model, subscription));
    });
    try {
      await channel.prefetch(subscription.prefetch ?? 16);
      const queue = await declareQueue(channel, this.exchange, subscription);
      for (const key of subscription.bindings) await channel.bindQueue(queue, this.exchange, key);
      await channel.consume(queue, (message) => {
        if (message) {
          void this.handle(channel, subscription, message);
          return;
        }
        // The broker cancelled the consumer (its queue deleted, or its node gone): not attached from
        // now on, and closing the channel gives back what it holds and starts the consumer again on
        // a new one.
        this.log.warn({ queue: subscription.queue }, 'broker cancelled a consumer');
        this.attached.delete(subscription);
        channel.close().catch(() => undefined);
      });
    } catch (error) {
      await channel.close().catch(() => undefined);
      throw error;
    }
    consuming = true;
    this.attached.add(subscription);
  }

  /**
   * Reopens what a channel the broker closed carried, for as long as the connection it was on is
   * the current one (a new connection's setup reopens everything itself): at once, then after
   * growing pauses. Resolves after the first attempt.
   */
  private async reopen(model: ChannelModel, what: string, open: () => Promise<void>, attempt = 0): Promise<void> {
    // A connection that closes closes its channels first: a turn later it is known to be gone.
    await new Promise((resolve) => setImmediate(resolve));
    if (!this.isCurrent(model)) return;
    try {
      await open();
      this.log.info({ channel: what }, 'broker channel reopened');
    } catch (error) {
      if (!this.isCurrent(model)) return;
      const delay = Math.min(RETRY_MAX_DELAY_MS, RETRY_INITIAL_DELAY_MS * 2 ** attempt);
      this.log.warn({ err: (error as Error).message, channel: what, retry_in_ms: delay }, 'broker channel not reopened');
      setTimeout(() => void this.reopen(model, what, open, attempt + 1), delay).unref();
    }
  }

  private isCurrent(model: ChannelModel): boolean {
    return !this.closed && this.model === model;
  }

  private async handle(channel: Channel, subscription: QueueSubscription, message: ConsumeMessage): Promise<void> {
    const held = this.inHand.get(subscription) ?? new Set();
    this.inHand.set(subscription, held);
    const token = { since: Date.now() };
    held.add(token);
    try {
      await this.consumeMessage(channel, subscription, message);
    } finally {
      held.delete(token);
    }
  }

  private async consumeMessage(channel: Channel, subscription: QueueSubscription, message: ConsumeMessage): Promise<void> {
    let event: EventEnvelope;
    try {
      event = JSON.parse(message.content.toString('utf8')) as EventEnvelope;
    } catch {
      this.log.error({ queue: subscription.queue }, 'unparseable message dead-lettered');
      channel.nack(message, false, false);
      return;
    }
    try {
      await subscription.handler(event, message);
      channel.ack(message);
    } catch (error) {
      this.log.warn({ err: (error as Error).message, event_id: event.id, type: event.type }, 'event handling failed, requeued');
      // A pause before the requeue keeps a failing dependency from turning into a hot loop.
      await new Promise((resolve) => setTimeout(resolve, REQUEUE_DELAY_MS));
      try {
        channel.nack(message, false, true);
      } catch {
        // The channel closed with the connection; the broker redelivers the message.
      }
    }
  }
}

/**
 * A delay queue's declaration: a quorum queue whose TTL is the delay, dead-lettering at-least-once
 * to `routingKey` on the exchange, removing itself after standing unused for twice the delay plus an
 * hour. The arguments are part of the queue: a queue of the same name declared with others is refused.
 */
export function delayQueueArguments(exchange: string, delayMs: number, routingKey: string): Record<string, unknown> {
  return {
    'x-queue-type': 'quorum',
    'x-message-ttl': delayMs,
    'x-expires': delayMs * 2 + 3_600_000,
    'x-dead-letter-exchange': exchange,
    'x-dead-letter-routing-key': routingKey,
    'x-dead-letter-strategy': 'at-least-once',
    'x-overflow': 'reject-publish',
  };
}

export function deadLetterExchange(exchange: string): string {
  return `${exchange}.dlx`;
}

export function deadLetterQueue(exchange: string): string {
  return `${exchange}.dead-letters`;
}

async function assertTopology(channel: Channel, exchange: string): Promise<void> {
  await channel.assertExchange(exchange, 'topic', { durable: true });
  await channel.assertExchange(deadLetterExchange(exchange), 'fanout', { durable: true });
  const deadLetters = deadLetterQueue(exchange);
  await channel.assertQueue(deadLetters, { durable: true, arguments: { 'x-queue-type': 'quorum' } });
  await channel.bindQueue(deadLetters, deadLetterExchange(exchange), '');
}

async function declareQueue(channel: Channel, exchange: string, subscription: QueueSubscription): Promise<string> {
  if (subscription.broadcast) {
    const { queue } = await channel.assertQueue('', { exclusive: true, autoDelete: true });
    return queue;
  }
  await channel.assertQueue(subscription.queue, {
    durable: true,
    arguments: {
      'x-queue-type': 'quorum',
      'x-dead-letter-exchange': deadLetterExchange(exchange),
      'x-delivery-limit': DELIVERY_LIMIT,
    },
  });
  return subscription.queue;
}

/**
 * A durable queue's name: `<service>.<purpose>` on the system's own exchange;
 * on any other exchange (test runs, parallel systems on one broker) the
 * exchange prefixes it, so runs never steal each other's messages.
 */
export function queueName(exchange: string, queue: string): string {
  return exchange === DEFAULT_EXCHANGE ? queue : `${exchange}.${queue}`;
}
