import { GatewayClient } from '../e2e/src/client.js';
import { describeTraffic, steadyTraffic } from './steady-traffic.js';
import { startReceiver } from './support.js';

/**
 * The cost bench's steady traffic against a running system (scripts/ci/image.sh runs it against the
 * containers, so their memory after a long load can be read as in production):
 *
 *   GATEWAY_URL=http://127.0.0.1:18080 LOAD_SECONDS=600 npx tsx bench/image-load.ts
 *
 * A new operator with a key and a webhook endpoint on a receiver here, so that every submission's status
 * change is also signed and delivered; then LOAD_SECONDS of its reads, submissions (in no zone) and lists.
 * Prints what was answered; exits non-zero if nothing was.
 */
const gatewayUrl = process.env['GATEWAY_URL'] ?? 'http://127.0.0.1:8080';
const seconds = Number(process.env['LOAD_SECONDS'] ?? 600);
/** Far from every zone of the sample data: submissions are approved by screening, each one a webhook. */
const UNSCREENED_LON = -20;

const client = new GatewayClient(gatewayUrl);
const receiver = await startReceiver();
try {
  const operator = await client.registerOperatorWithKey();
  const endpoint = await client.send('POST', '/api/webhooks', {
    key: operator.key,
    body: { url: `${receiver.url}/image-load`, events: ['status_change'] },
  });
  if (endpoint.status !== 201) throw new Error(`the webhook endpoint was refused: ${endpoint.status} ${JSON.stringify(endpoint.body)}`);
  const traffic = await steadyTraffic(client, operator, seconds, UNSCREENED_LON);
  process.stdout.write(`[image-load] ${seconds} s: ${describeTraffic(traffic)}, ${receiver.count} webhooks received\n`);
  if (traffic.reads.answered === 0 || traffic.submissions.answered === 0) process.exitCode = 1;
} finally {
  await receiver.close();
}
