import { createServer, type IncomingHttpHeaders } from 'node:http';
import { Pool } from 'undici';
import { answerHeaders, benchChannel, listenForTheBench, unavailable } from './baseline-child.js';

/**
 * The cost bench's baseline for a proxied read (bench/cost.bench.ts): the least
 * a Node proxy in front of operator-service does per request, a node:http
 * server and one undici Pool, with none of the gateway's work (no key check,
 * rate limit, metrics, request id, koa). The gateway's CPU per request over
 * this one's, measured side by side in one run, is what the gateway's own
 * work costs, whatever else loads the machine.
 *
 * Started by the bench as a child process with an IPC channel: it listens on
 * a free port and sends `{ port }`; the bench sends `{ token }` before the
 * last token expires.
 *
 * BARE_PROXY_UPSTREAM: the operator-service's base URL (or the recorded upstream in front of it).
 * BARE_PROXY_TOKEN: the first internal token, signed by the bench with the system's key.
 */
const send = benchChannel('bench/bare-proxy.ts', 'BARE_PROXY_UPSTREAM, BARE_PROXY_TOKEN');
const upstream = process.env['BARE_PROXY_UPSTREAM'];
let token = process.env['BARE_PROXY_TOKEN'];
if (!upstream || !token) throw new Error('bench/bare-proxy.ts needs BARE_PROXY_UPSTREAM and BARE_PROXY_TOKEN');

const pool = new Pool(upstream, { connections: 64 });
process.on('message', (message: { token: string }) => (token = message.token));

/** What a proxy must do with a read: the client's headers on (less the hop's and the key), the answer's back, the body whole. */
const server = createServer((request, response) => {
  const headers: IncomingHttpHeaders = { ...request.headers, 'x-internal-token': token };
  delete headers.host;
  delete headers.connection;
  delete headers['x-api-key'];
  pool
    .request({ path: request.url ?? '/', method: 'GET', headers })
    .then(async (answer) => {
      const body = Buffer.from(await answer.body.arrayBuffer());
      response.writeHead(answer.statusCode, answerHeaders(answer.headers));
      response.end(body);
    })
    .catch(() => unavailable(response));
});
listenForTheBench(server, send);
