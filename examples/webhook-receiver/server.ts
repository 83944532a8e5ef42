/**
 * A minimal webhook subscriber: reads the raw body, verifies the signature
 * with the shared helper (HMAC-SHA256, constant-time, 5-minute tolerance),
 * de-duplicates by X-Webhook-Id, logs the event and answers 200.
 *
 *   WEBHOOK_SECRET=whsec_... PORT=4000 npx tsx examples/webhook-receiver/server.ts
 *
 * During a secret rotation set WEBHOOK_SECRET to both secrets, comma-separated.
 */
import { createServer } from 'node:http';
import { verifyWebhookSignature, WEBHOOK_HEADERS } from '@dfc/contracts';
import { FlightStatusTracker, isRescission, type StatusChange } from './flight-status.js';

const port = Number(process.env['PORT'] ?? 4000);
const secrets = (process.env['WEBHOOK_SECRET'] ?? '')
  .split(',')
  .map((secret) => secret.trim())
  .filter(Boolean);
if (secrets.length === 0) {
  process.stderr.write('Set WEBHOOK_SECRET to the whsec_... secret shown when the endpoint was registered.\n');
  process.exit(1);
}

const MAX_BODY_BYTES = 1024 * 1024;
/** Applies each request's status changes in `sequence` order; a Rescinded flight must not go ahead. */
const statuses = new FlightStatusTracker((change) => {
  if (isRescission(change)) console.warn(`RESCINDED ${change.flight_request_uuid}: ${change.reason ?? ''} — do not fly`);
});

/** Recently seen event ids: a retry of an event already handled is acknowledged, not handled twice. */
const seen = new Set<string>();

const server = createServer((req, res) => {
  if (req.method !== 'POST') {
    res.writeHead(405).end();
    return;
  }
  const chunks: Buffer[] = [];
  let size = 0;
  req.on('data', (chunk: Buffer) => {
    size += chunk.length;
    if (size > MAX_BODY_BYTES) req.destroy();
    else chunks.push(chunk);
  });
  req.on('end', () => {
    // Verify the bytes as received: re-serialising parsed JSON would change them.
    const rawBody = Buffer.concat(chunks);
    const result = verifyWebhookSignature({ rawBody, header: req.headers['x-webhook-signature'] as string | undefined, secrets });
    if (!result.valid) {
      console.warn(`refused delivery: ${result.reason}`);
      res.writeHead(400).end();
      return;
    }
    const eventId = String(req.headers[WEBHOOK_HEADERS.id.toLowerCase()] ?? '');
    if (seen.has(eventId)) {
      res.writeHead(200).end('duplicate');
      return;
    }
    seen.add(eventId);
    if (seen.size > 10_000) seen.delete(seen.values().next().value as string);
    const event = JSON.parse(rawBody.toString('utf8')) as { id: string; event: string; created_at: string; data: Record<string, unknown> };
    console.log(JSON.stringify({ received: event.event, id: event.id, created_at: event.created_at, data: event.data }));
    if (event.event === 'status_change') statuses.accept(event.data as unknown as StatusChange);
    res.writeHead(200, { 'Content-Type': 'text/plain' }).end('ok');
  });
});

server.listen(port, () => console.log(`webhook receiver listening on http://127.0.0.1:${port}/`));
