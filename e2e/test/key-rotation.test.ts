import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { expect } from 'chai';
import { createLocalJWKSet, jwtVerify, type JSONWebKeySet } from 'jose';
import { verifyWebhookSignature } from '@dfc/contracts';
import { generateTokenKeys, waitFor } from '@dfc/kit/testing';
import { flightRequestBody, GatewayClient, WebhookReceiver, type RegisteredOperator } from '../src/client.js';
import { startSystem, type ServiceName, type System } from '../src/system.js';

/**
 * The key rotations of docs/operations.md "Key and secret rotation", run step
 * by step on the real system: services restarted with the settings each step
 * gives them, and at every step nothing that was valid fails to verify or decrypt.
 */
const REPO_ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const VERIFIERS: ServiceName[] = ['operator-service', 'flight-request-service', 'webhook-service'];

/** Restarts services one after the other, as a rolling update replaces pods. */
async function roll(system: System, services: ServiceName[], env: Record<string, string>): Promise<void> {
  for (const service of services) {
    await system.kill(service, 'SIGTERM');
    await system.start(service, env);
  }
}

/** Submits once the operator projection has caught up (until then the operator is unknown: 422 on operator_uuid). */
function submit(client: GatewayClient, operator: RegisteredOperator, lon: number) {
  return waitFor(async () => {
    const response = await client.send('POST', '/api/flight-requests', { key: operator.key, body: flightRequestBody(operator, {}, lon) });
    return response.status === 422 && response.body.errors?.operator_uuid ? undefined : response;
  }, 15_000);
}

describe('key rotation: the authorisation signing key, published before it signs', function () {
  this.timeout(180_000);
  const oldKey = generateTokenKeys();
  const newKey = generateTokenKeys();
  let system: System;
  let client: GatewayClient;
  let operator: RegisteredOperator;

  before(async () => {
    system = await startSystem({
      services: ['operator-service', 'flight-request-service', 'gateway'],
      env: { AUTHORISATION_SIGNING_KEY: oldKey.privateKeyPem },
    });
    client = new GatewayClient(system.gatewayUrl);
    operator = await client.registerOperatorWithKey();
  });
  after(async () => system?.stop());

  const jwks = async (): Promise<{ keys: JSONWebKeySet; maxAge: number }> => {
    const response = await fetch(`${system.gatewayUrl}/.well-known/jwks.json`);
    const maxAge = Number(/max-age=(\d+)/.exec(response.headers.get('cache-control') ?? '')?.[1]);
    return { keys: (await response.json()) as JSONWebKeySet, maxAge };
  };
  const tokenOf = async (uuid: string): Promise<{ token: string; kid: string }> => {
    const issued = await client.send('GET', `/api/v1/flight-requests/${uuid}/authorisation`, { key: operator.key });
    expect(issued.status).to.equal(200);
    return { token: issued.body.data.token, kid: issued.body.data.kid };
  };
  /** A verifier that fetched the key set once and, honouring max-age, does not fetch it again. */
  const verifiesWith = async (cached: JSONWebKeySet, token: string): Promise<boolean> => {
    try {
      await jwtVerify(token, createLocalJWKSet(cached), {
        issuer: 'dfc-flight-request-service',
        typ: 'dfc-authorisation+jwt',
        algorithms: ['EdDSA'],
      });
      return true;
    } catch {
      return false;
    }
  };

  it('GET /.well-known/jwks.json, GET /api/v1/flight-requests/{uuid}/authorisation: publish the new key, wait out max-age, then sign with it: every verifier cache verifies every token it is shown, old and new', async () => {
    const created = await submit(client, operator, 7.11);
    expect(created.body.data.status).to.equal('Approved');
    const uuid: string = created.body.data.uuid;
    const before = await tokenOf(uuid);
    const cachedBefore = await jwks();
    expect(cachedBefore.maxAge, 'the wait between publishing and signing').to.equal(300);
    expect(cachedBefore.keys.keys.map((key) => key.kid)).to.deep.equal([before.kid]);

    // 1. Publish: the new public key beside the old signing key, on every replica.
    await roll(system, ['flight-request-service'], { AUTHORISATION_PREVIOUS_PUBLIC_KEYS: newKey.publicKeyPem });
    const published = await tokenOf(uuid);
    expect(published, 'still signed with the old key').to.deep.equal(before);
    expect(await verifiesWith(cachedBefore.keys, published.token), 'a cache from before the rotation').to.equal(true);
    // Every cache refreshed within max-age of the rollout now holds both keys.
    const cachedAfterPublish = await jwks();
    expect(cachedAfterPublish.keys.keys).to.have.length(2);
    expect(cachedAfterPublish.keys.keys[0]!.kid).to.equal(before.kid);
    const newKid = cachedAfterPublish.keys.keys[1]!.kid!;

    // 2. Sign: the new key signs, the old one stays published.
    await roll(system, ['flight-request-service'], {
      AUTHORISATION_SIGNING_KEY: newKey.privateKeyPem,
      AUTHORISATION_PREVIOUS_PUBLIC_KEYS: oldKey.publicKeyPem,
    });
    const signed = await tokenOf(uuid);
    expect(signed.kid).to.equal(newKid);
    expect(await verifiesWith(cachedAfterPublish.keys, signed.token), 'the new token, with a cache filled after step 1').to.equal(true);
    expect(await verifiesWith(cachedAfterPublish.keys, before.token), 'the old token, with that cache').to.equal(true);
    expect(await verifiesWith((await jwks()).keys, before.token), 'the old token, with the current key set').to.equal(true);
    expect(await verifiesWith(cachedBefore.keys, signed.token), 'why step 2 waits out max-age: a cache older than step 1 lacks the new key').to.equal(
      false,
    );

    // 3. Retire the old key once every token it signed has expired.
    await roll(system, ['flight-request-service'], { AUTHORISATION_SIGNING_KEY: newKey.privateKeyPem });
    const retired = await jwks();
    expect(retired.keys.keys.map((key) => key.kid)).to.deep.equal([newKid]);
    expect(await verifiesWith(retired.keys, (await tokenOf(uuid)).token)).to.equal(true);
  });
});

describe('key rotation: the internal token key, with an overlap window', function () {
  this.timeout(240_000);
  const newKey = generateTokenKeys();
  let system: System;
  let client: GatewayClient;
  let operator: RegisteredOperator;

  before(async () => {
    // The calls below run flat out for the whole rotation: more than the per-key limit allows.
    system = await startSystem({ serviceEnv: { gateway: { RATE_LIMIT_PER_KEY_PER_MINUTE: '100000' } } });
    client = new GatewayClient(system.gatewayUrl);
    operator = await client.registerOperatorWithKey();
    await submit(client, operator, 7.21);
  });
  after(async () => system?.stop());

  /** Calls that reach each service through the gateway, until stopped; the statuses seen (0: the gateway itself was down). */
  function trafficUntil(stopped: () => boolean): Promise<number[]> {
    const paths = [`/api/operators/${operator.uuid}`, '/api/flight-requests', '/api/webhooks'];
    return (async () => {
      const statuses: number[] = [];
      while (!stopped()) {
        for (const path of paths) {
          statuses.push(
            await client.send('GET', path, { key: operator.key }).then(
              (answer) => answer.status,
              () => 0,
            ),
          );
        }
        await new Promise((done) => setTimeout(done, 50));
      }
      return statuses;
    })();
  }

  it('GET through the gateway to every service while the key rotates: the services accept both public keys, then the gateway signs with the new one, then the old one goes: no call is refused with 401', async () => {
    let rotating = true;
    const traffic = trafficUntil(() => !rotating);
    try {
      // 1. Overlap: every verifier accepts the old and the new public key.
      await roll(system, VERIFIERS, { INTERNAL_TOKEN_PUBLIC_KEY: `${system.publicKeyPem}${newKey.publicKeyPem}` });
      // 2. The gateway signs with the new key.
      await roll(system, ['gateway'], { INTERNAL_TOKEN_PRIVATE_KEY: newKey.privateKeyPem });
      // 3. Once no token signed with the old key can still be alive (60 s after the last old gateway
      //    stopped; here it stopped above): the verifiers drop the old key.
      await roll(system, VERIFIERS, { INTERNAL_TOKEN_PUBLIC_KEY: newKey.publicKeyPem });
    } finally {
      rotating = false;
    }
    const statuses = await traffic;
    expect(statuses.filter((status) => status === 200).length, 'calls answered during the rotation').to.be.above(10);
    expect(
      statuses.filter((status) => status === 401),
      'refused tokens',
    ).to.have.length(0);
    for (const path of [`/api/operators/${operator.uuid}`, '/api/flight-requests', '/api/webhooks']) {
      expect((await client.send('GET', path, { key: operator.key })).status, path).to.equal(200);
    }
  });
});

describe('key rotation: WEBHOOK_SECRET_KEY, re-encrypting every endpoint secret', function () {
  this.timeout(240_000);
  const oldKey = randomBytes(32).toString('base64');
  const newKey = randomBytes(32).toString('base64');
  const receivers = [new WebhookReceiver(), new WebhookReceiver()];
  let system: System;
  let client: GatewayClient;
  let operator: RegisteredOperator;

  before(async () => {
    system = await startSystem({ env: { WEBHOOK_SECRET_KEY: oldKey } });
    client = new GatewayClient(system.gatewayUrl);
    operator = await client.registerOperatorWithKey();
    for (const receiver of receivers) await receiver.start();
  });
  after(async () => {
    for (const receiver of receivers) await receiver.close();
    await system?.stop();
  });

  const subscribe = async (receiver: WebhookReceiver): Promise<string> => {
    const created = await client.send('POST', '/api/webhooks', { key: operator.key, body: { url: receiver.url, events: ['status_change'] } });
    expect(created.status).to.equal(201);
    return created.body.data.secret;
  };
  /** A new flight request's first status_change reaches every receiver, signed with its endpoint's secret. */
  const expectSignedDeliveries = async (secrets: string[], lon: number) => {
    const created = await submit(client, operator, lon);
    expect(created.status).to.equal(201);
    for (const [index, secret] of secrets.entries()) {
      const [hook] = await waitFor(
        () => {
          const arrived = receivers[index]!.about(created.body.data.uuid, 'status_change');
          return arrived.length > 0 ? arrived : undefined;
        },
        30_000,
        100,
      );
      const verified = verifyWebhookSignature({ rawBody: hook!.rawBody, header: String(hook!.headers['x-webhook-signature']), secrets: secret });
      expect(verified.valid, `receiver ${index + 1}`).to.equal(true);
    }
  };
  const reencrypt = async (): Promise<number> => {
    const { stdout } = await promisify(execFile)(process.execPath, ['--import', 'tsx', 'services/webhook-service/src/reencrypt-secrets.ts'], {
      cwd: REPO_ROOT,
      timeout: 60_000,
      env: {
        PATH: process.env['PATH'] ?? '',
        LOG_LEVEL: 'info',
        MONGO_URL: system.mongoUrl,
        MONGO_DB: system.database('webhook-service'),
        AMQP_URL: system.amqpUrl,
        AMQP_EXCHANGE: system.exchange,
        INTERNAL_TOKEN_PUBLIC_KEY: system.publicKeyPem,
        WEBHOOK_SECRET_KEY: newKey,
        WEBHOOK_SECRET_KEY_DECRYPT_ONLY: oldKey,
      },
    });
    const done = stdout
      .split('\n')
      .filter(Boolean)
      .map((line) => JSON.parse(line) as { endpoints_changed?: number })
      .find((line) => line.endpoints_changed !== undefined);
    expect(done, stdout).to.not.equal(undefined);
    return done!.endpoints_changed!;
  };

  it('webhook deliveries while the key rotates: the new key accepted, then sealing, re-encryption, the old key dropped: every endpoint secret still signs', async () => {
    const secrets = [await subscribe(receivers[0]!)];
    await expectSignedDeliveries(secrets, 7.31);

    // 1. Every replica opens what the new key seals before any seals with it.
    await roll(system, ['webhook-service'], { WEBHOOK_SECRET_KEY: oldKey, WEBHOOK_SECRET_KEY_DECRYPT_ONLY: newKey });
    await expectSignedDeliveries(secrets, 7.32);

    // 2. The new key seals, the old one still opens what it sealed.
    await roll(system, ['webhook-service'], { WEBHOOK_SECRET_KEY: newKey, WEBHOOK_SECRET_KEY_DECRYPT_ONLY: oldKey });
    secrets.push(await subscribe(receivers[1]!));
    await expectSignedDeliveries(secrets, 7.33);

    // 3. Re-encrypt: the endpoint sealed under the old key is moved; a second run finds nothing left.
    expect(await reencrypt()).to.equal(1);
    expect(await reencrypt()).to.equal(0);

    // 4. The old key is dropped.
    await roll(system, ['webhook-service'], { WEBHOOK_SECRET_KEY: newKey });
    await expectSignedDeliveries(secrets, 7.34);
    expect(system.logs('webhook-service')).to.not.match(/opens the secret|unable to authenticate data/);
  });
});
