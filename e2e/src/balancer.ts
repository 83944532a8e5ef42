import { createConnection, createServer, type Server, type Socket } from 'node:net';

/**
 * A round-robin TCP balancer on 127.0.0.1: each connection goes to the next
 * target, as a Kubernetes Service spreads connections over a Deployment's pods.
 */
export interface Balancer {
  close(): Promise<void>;
}

export function startBalancer(port: number, targets: number[]): Promise<Balancer> {
  let next = 0;
  const sockets = new Set<Socket>();
  const server: Server = createServer((client) => {
    const target = targets[next++ % targets.length]!;
    const upstream = createConnection({ host: '127.0.0.1', port: target });
    for (const socket of [client, upstream]) {
      sockets.add(socket);
      socket.once('close', () => sockets.delete(socket));
      socket.on('error', () => {
        client.destroy();
        upstream.destroy();
      });
    }
    client.pipe(upstream).pipe(client);
  });
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () =>
      resolve({
        close: () =>
          new Promise<void>((done) => {
            for (const socket of sockets) socket.destroy();
            server.close(() => done());
          }),
      }),
    );
  });
}
