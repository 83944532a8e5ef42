import { connect, type Socket } from 'node:net';
import { waitFor } from './wait-for.js';

export interface HalfSentBody {
  socket: Socket;
  /** The answer as it came, once all of it is in: its status and its JSON body. */
  answer(timeoutMs?: number): Promise<{ status: number; headers: string; body: unknown }>;
}

/**
 * A request that declares `declaredBytes` of JSON body and sends only its headers and `firstBytes`: what a
 * slow or hostile client holds open. Its answer, when one comes before the body, shows what a server decided
 * without reading it. Destroy its socket when done.
 */
export function halfSentBody(
  url: string,
  request: { method?: string; path: string; headers?: Record<string, string>; declaredBytes: number; firstBytes?: string },
): HalfSentBody {
  const { hostname, port } = new URL(url);
  const headers = Object.entries({ host: `${hostname}:${port}`, 'content-type': 'application/json', ...request.headers })
    .map(([name, value]) => `${name}: ${value}\r\n`)
    .join('');
  let received = '';
  const socket = connect(Number(port), hostname, () =>
    socket.write(
      `${request.method ?? 'POST'} ${request.path} HTTP/1.1\r\n${headers}content-length: ${request.declaredBytes}\r\n\r\n${request.firstBytes ?? '{'}`,
    ),
  );
  socket.setEncoding('utf8');
  socket.on('data', (chunk: string) => (received += chunk));
  socket.on('error', () => undefined);
  return {
    socket,
    answer: (timeoutMs = 2_000) =>
      waitFor(() => {
        const end = received.indexOf('\r\n\r\n');
        if (end < 0) return undefined;
        const [head, body] = [received.slice(0, end), received.slice(end + 4)];
        if (Buffer.byteLength(body) < Number(/^content-length: (\d+)/im.exec(head)?.[1] ?? 0)) return undefined;
        return { status: Number(head.split(' ')[1]), headers: head, body: body === '' ? undefined : (JSON.parse(body) as unknown) };
      }, timeoutMs),
  };
}
