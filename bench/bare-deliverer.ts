import { Agent, request } from 'node:http';
import { connect } from 'amqplib';
import mongoose from 'mongoose';
import { signWebhookPayload } from '@dfc/contracts';
import { benchChannel } from './baseline-child.js';

/**
 * The cost bench's baseline for a webhook delivery (bench/cost.bench.ts): the
 * least a deliverer on the same libraries does per event, with none of
 * webhook-service's work (no subscribers read, no delivery log, no work queue,
 * retries, health, metrics or schema checks). It takes an event from a quorum
 * queue (amqplib, the services' window), POSTs it signed (the contracts' `X-Webhook-Signature`) to each
 * target over keep-alive connections (node:http), records the answers in one
 * insert (the mongodb driver) and acks. webhook-service's CPU per delivery over
 * this one's, measured under the same load in one run, is what the service's
 * own guarantees cost, whatever else loads the machine.
 *
 * Started by the bench as a child process with an IPC channel: it sends
 * `{ ready: true }` once it consumes.
 *
 * BARE_DELIVERER_AMQP_URL, BARE_DELIVERER_QUEUE: where the events are.
 * BARE_DELIVERER_MONGO_URL: the database the records go to (collection `bare_deliveries`).
 * BARE_DELIVERER_TARGETS: the receiver URLs, comma-separated.
 */
const send = benchChannel('bench/bare-deliverer.ts', 'BARE_DELIVERER_*');
const env = (name: string): string => {
  const value = process.env[name];
  if (!value) throw new Error(`bench/bare-deliverer.ts needs ${name}`);
  return value;
};
const targets = env('BARE_DELIVERER_TARGETS').split(',');
const secret = 'bench-bare-deliverer';
const WINDOW = 32;

const agent = new Agent({ keepAlive: true, maxSockets: 64 });
// The driver's collection under mongoose's connection, as the kit writes hot-path documents.
const database = await mongoose.createConnection(env('BARE_DELIVERER_MONGO_URL')).asPromise();
const records = database.db!.collection('bare_deliveries');
const connection = await connect(env('BARE_DELIVERER_AMQP_URL'));
const channel = await connection.createChannel();
const queue = env('BARE_DELIVERER_QUEUE');
await channel.assertQueue(queue, { durable: true, arguments: { 'x-queue-type': 'quorum' } });
await channel.prefetch(WINDOW);
await channel.consume(queue, (message) => {
  if (!message) return;
  const event = JSON.parse(message.content.toString('utf8')) as { id: string };
  const body = JSON.stringify(event);
  void Promise.all(targets.map((target) => post(target, event.id, body)))
    .then((statuses) => records.insertMany(statuses.map((status, index) => ({ event_id: event.id, target: targets[index], status, at: new Date() }))))
    .then(() => channel.ack(message));
});
send({ ready: true });

/** One signed POST; the answer's status. */
function post(target: string, id: string, body: string): Promise<number> {
  const signature = signWebhookPayload({ rawBody: body, secrets: secret });
  return new Promise((resolve, reject) => {
    const sent = request(
      target,
      { method: 'POST', agent, headers: { 'content-type': 'application/json', 'webhook-id': id, 'x-webhook-signature': signature } },
      (answer) => {
        answer.resume();
        answer.on('end', () => resolve(answer.statusCode ?? 0));
      },
    );
    sent.on('error', reject);
    sent.end(body);
  });
}
