import { randomBytes } from 'node:crypto';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import { flightRequestExample } from '@dfc/contracts';

/**
 * What end-to-end tests do as a client of the gateway, written once. Bodies
 * default to `any`: tests read fields of documented answers to assert on them.
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- the default named above
export interface Answer<T = any> {
  status: number;
  headers: Headers;
  body: T;
}

export interface RegisteredOperator {
  uuid: string;
  email: string;
  password: string;
  key: string;
  keyId: string;
}

export class GatewayClient {
  constructor(readonly baseUrl: string) {}

  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- the default of Answer
  async send<T = any>(
    method: string,
    path: string,
    options: { key?: string; body?: unknown; headers?: Record<string, string> } = {},
  ): Promise<Answer<T>> {
    const response = await fetch(`${this.baseUrl}${path}`, {
      method,
      headers: {
        ...(options.body === undefined ? {} : { 'content-type': 'application/json' }),
        ...(options.key ? { 'x-api-key': options.key } : {}),
        ...options.headers,
      },
      body: options.body === undefined ? undefined : JSON.stringify(options.body),
    });
    const text = await response.text();
    return { status: response.status, headers: response.headers, body: (text === '' ? undefined : JSON.parse(text)) as T };
  }

  /** Registers an operator and issues it a key with HTTP Basic, as a new client does. */
  async registerOperatorWithKey(overrides: Record<string, unknown> = {}): Promise<RegisteredOperator> {
    const email = `e2e-${randomBytes(5).toString('hex')}@example.com`;
    const password = 'correct horse battery staple';
    const registered = await this.send<{ data: { uuid: string } }>('POST', '/api/operators', {
      body: { company_name: 'E2E Aerial', email, password, phone: '+31 20 555 0100', ...overrides },
    });
    if (registered.status !== 201) throw new Error(`registration answered ${registered.status}: ${JSON.stringify(registered.body)}`);
    const uuid = registered.body.data.uuid;
    const issued = await this.send<{ data: { key: string; id: string } }>('POST', `/api/operators/${uuid}/api-keys`, {
      body: { name: 'e2e' },
      headers: { authorization: `Basic ${Buffer.from(`${email}:${password}`).toString('base64')}` },
    });
    if (issued.status !== 201) throw new Error(`key issuance answered ${issued.status}: ${JSON.stringify(issued.body)}`);
    return { uuid, email, password, key: issued.body.data.key, keyId: issued.body.data.id };
  }
}

/** `2026-12-01T10:00:00Z`: the spec's UTC form, whole seconds. */
export function isoZ(date: Date): string {
  return `${date.toISOString().slice(0, 19)}Z`;
}

/** A valid submission (the documented example): an hour from now for an hour, a small square at `lon`, `lat` (52.0). */
export function flightRequestBody(operator: { uuid: string; email: string }, overrides: Record<string, unknown> = {}, lon = 4.9, lat = 52) {
  const start = new Date(Math.ceil((Date.now() + 3_600_000) / 1000) * 1000);
  return {
    ...flightRequestExample({ operatorUuid: operator.uuid, operatorEmail: operator.email, start, corner: [lon, lat], side: 0.001 }),
    ...overrides,
  };
}

export interface ReceivedWebhook {
  headers: IncomingHttpHeaders;
  rawBody: string;
  body: { id: string; event: string; created_at: string; data: Record<string, unknown> };
}

/** How the receiver answers one webhook: a status and, optionally, headers. */
export interface ReceiverAnswer {
  status: number;
  headers?: Record<string, string>;
}

/** A subscriber's webhook handler on a loopback port that remembers everything and answers 200, or as `answer` says. */
export class WebhookReceiver {
  readonly received: ReceivedWebhook[] = [];
  answer: (hook: ReceivedWebhook) => ReceiverAnswer = () => ({ status: 200 });
  private server: Server | undefined;
  url = '';

  async start(): Promise<this> {
    this.server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (chunk: Buffer) => chunks.push(chunk));
      req.on('end', () => {
        const rawBody = Buffer.concat(chunks).toString('utf8');
        const hook = { headers: req.headers, rawBody, body: JSON.parse(rawBody) as ReceivedWebhook['body'] };
        this.received.push(hook);
        const { status, headers } = this.answer(hook);
        res.writeHead(status, headers).end(status < 300 ? 'ok' : 'not now');
      });
    });
    await new Promise<void>((resolve) => this.server?.listen(0, '127.0.0.1', resolve));
    const address = this.server.address();
    if (address === null || typeof address === 'string') throw new Error('no port');
    this.url = `http://127.0.0.1:${address.port}/webhooks`;
    return this;
  }

  /** The webhooks received about one flight request, of one kind. */
  about(flightRequestUuid: string, event: string): ReceivedWebhook[] {
    return this.received.filter((hook) => hook.body.event === event && hook.body.data['flight_request_uuid'] === flightRequestUuid);
  }

  async close(): Promise<void> {
    const server = this.server;
    if (!server) return;
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }
}
