import { createServer, type IncomingHttpHeaders, type OutgoingHttpHeaders } from 'node:http';
import { Pool } from 'undici';
import { answerHeaders, benchChannel, listenForTheBench, unavailable } from './baseline-child.js';

/**
 * The cost bench's upstream that answers at once (bench/cost.bench.ts, "proxied
 * read, upstream answering at once"): in front of operator-service, it forwards
 * each GET path's first request and, once that was a 200, answers that path
 * from the recorded answer, without a database behind it; every other request
 * (the gateway's key verification) is forwarded. A proxy in front of it works
 * at the rate its own CPU allows, not at the rate the local engine lets
 * operator-service answer, and a proxy's CPU per request depends on that rate
 * (each request is an event-loop wake-up of its own when they come slowly).
 * The recorded answer goes to whoever asks for the path: a bench stand-in only.
 *
 * Started by the bench as a child process with an IPC channel: it listens on
 * a free port and sends `{ port }`.
 *
 * RECORDED_UPSTREAM: the operator-service's base URL.
 */
const send = benchChannel('bench/recorded-upstream.ts', 'RECORDED_UPSTREAM');
const upstream = process.env['RECORDED_UPSTREAM'];
if (!upstream) throw new Error('bench/recorded-upstream.ts needs RECORDED_UPSTREAM');

interface Answer {
  status: number;
  headers: OutgoingHttpHeaders;
  body: Buffer;
}

const pool = new Pool(upstream, { connections: 16 });
const recorded = new Map<string, Answer>();

async function forward(method: string, path: string, headers: IncomingHttpHeaders, body: Buffer): Promise<Answer> {
  const forwarded = { ...headers };
  delete forwarded.host;
  delete forwarded.connection;
  const answer = await pool.request({ path, method, headers: forwarded, ...(body.length > 0 ? { body } : {}) });
  return { status: answer.statusCode, headers: answerHeaders(answer.headers), body: Buffer.from(await answer.body.arrayBuffer()) };
}

const server = createServer((request, response) => {
  const path = request.url ?? '/';
  const method = request.method ?? 'GET';
  const chunks: Buffer[] = [];
  request.on('data', (chunk: Buffer) => chunks.push(chunk));
  request.on('end', () => {
    const known = method === 'GET' ? recorded.get(path) : undefined;
    (known ? Promise.resolve(known) : forward(method, path, request.headers, Buffer.concat(chunks)))
      .then((answer) => {
        if (method === 'GET' && answer.status === 200) recorded.set(path, answer);
        response.writeHead(answer.status, answer.headers);
        response.end(answer.body);
      })
      .catch(() => unavailable(response));
  });
});
listenForTheBench(server, send);
