import { spawn, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { Broker } from '@dfc/kit/broker';
import { createLogger } from '@dfc/kit/logging';
import type { InternalTokenSigner } from '@dfc/kit/http';
import { waitFor } from '@dfc/kit/testing';
import { newEvent, RoutingKeys, type Principal } from '@dfc/contracts';
import { entryPoint, type System } from '../e2e/src/system.js';
import { freePort, statusData, type BenchReceiver } from './support.js';

/**
 * How far a second webhook-service process adds deliveries a second when the receivers are slow, for the webhooks
 * and soak benches: status_change events published straight on the broker, fanned out to SCALE_ENDPOINTS endpoints.
 */
export const SCALE_ENDPOINTS = 4;
/** Attempts in flight per replica, and per endpoint: what a replica can add is what the receivers' slowness leaves. */
export const SCALE_IN_FLIGHT = 4;

/**
 * Deliveries per second to a slow receiver with one webhook-service process,
 * then with two (a second replica on the same database and exchange), about
 * `deliveries` of each. Both replicas run with SCALE_IN_FLIGHT attempts in
 * flight, so the figure is what a replica adds when the receivers, not the
 * engine, are slow. The system's webhook-service is started again with those
 * limits, as one process.
 */
export async function scaleOut(
  system: System,
  secretKey: string,
  signer: InternalTokenSigner,
  receiver: BenchReceiver,
  slowMs: number,
  deliveries: number,
): Promise<{ one: number; two: number }> {
  const env = { WEBHOOK_MAX_IN_FLIGHT: String(SCALE_IN_FLIGHT), WEBHOOK_MAX_IN_FLIGHT_PER_ENDPOINT: String(SCALE_IN_FLIGHT) };
  const events = Math.max(1, Math.round(deliveries / SCALE_ENDPOINTS));
  await system.kill('webhook-service', 'SIGTERM');
  await system.start('webhook-service', env);
  const broker = await Broker.connect(system.amqpUrl, system.exchange, createLogger('webhook-scale', 'warn'));
  receiver.delayMs = slowMs;
  try {
    const operatorUuid = randomUUID();
    for (let index = 0; index < SCALE_ENDPOINTS; index++) await register(system, signer, operatorUuid, `${receiver.url}/slow/${index}`);
    await deliverAll(broker, receiver, operatorUuid, 10, SCALE_ENDPOINTS);
    const one = await deliverAll(broker, receiver, operatorUuid, events, SCALE_ENDPOINTS);
    const replica = await spawnReplica(system, secretKey, env);
    try {
      const two = await deliverAll(broker, receiver, operatorUuid, events, SCALE_ENDPOINTS);
      return { one, two };
    } finally {
      replica.kill('SIGTERM');
      await new Promise((resolve) => replica.once('exit', resolve));
    }
  } finally {
    receiver.delayMs = 0;
    await broker.close();
  }
}

/** A second webhook-service process on the system's database and exchange, ready when it answers /readyz. */
async function spawnReplica(system: System, secretKey: string, env: Record<string, string>): Promise<ChildProcess> {
  const port = await freePort();
  const child = spawn(process.execPath, entryPoint('webhook-service', 'main', true), {
    env: {
      PATH: process.env['PATH'] ?? '',
      LOG_LEVEL: 'warn',
      HOST: '127.0.0.1',
      PORT: String(port),
      MONGO_URL: system.mongoUrl,
      MONGO_DB: system.database('webhook-service'),
      AMQP_URL: system.amqpUrl,
      AMQP_EXCHANGE: system.exchange,
      INTERNAL_TOKEN_PUBLIC_KEY: system.publicKeyPem,
      WEBHOOK_SECRET_KEY: secretKey,
      ALLOW_LOOPBACK_WEBHOOK_TARGETS: 'true',
      ALLOW_HTTP_WEBHOOKS: 'true',
      ...env,
    },
    stdio: 'ignore',
  });
  await waitFor(async () => (await fetch(`http://127.0.0.1:${port}/readyz`).catch(() => undefined))?.ok === true, 60_000, 100);
  return child;
}

/** An endpoint of `operatorUuid` for status_change at `url`, registered straight with webhook-service. */
export async function register(system: System, signer: InternalTokenSigner, operatorUuid: string, url: string): Promise<void> {
  const principal: Principal = { sub: operatorUuid, role: 'operator', operator_uuid: operatorUuid, key_id: 'bench' };
  const response = await fetch(`${system.url('webhook-service')}/api/webhooks`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-internal-token': await signer.sign(principal) },
    body: JSON.stringify({ url, events: ['status_change'] }),
  });
  if (response.status !== 201) throw new Error(`endpoint registration failed: ${response.status} ${await response.text()}`);
}

/** Publishes `events` events and waits until every fanned-out delivery arrived; deliveries per second. */
export async function deliverAll(broker: Broker, receiver: BenchReceiver, operatorUuid: string, events: number, endpoints: number): Promise<number> {
  const expected = receiver.count + events * endpoints;
  const started = performance.now();
  const batch = 50;
  for (let sent = 0; sent < events; sent += batch) {
    const size = Math.min(batch, events - sent);
    await Promise.all(
      Array.from({ length: size }, () => broker.publish(newEvent(RoutingKeys.flightRequestStatusChanged, operatorUuid, statusData(operatorUuid)))),
    );
  }
  const deadline = Date.now() + 300_000;
  while (receiver.count < expected) {
    if (Date.now() > deadline)
      throw new Error(`only ${receiver.count - (expected - events * endpoints)} of ${events * endpoints} deliveries arrived`);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
  return (events * endpoints) / ((performance.now() - started) / 1000);
}
