import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { TObject } from '@sinclair/typebox';
import { expect } from 'chai';
import { commonConfig, amqpConfig } from '@dfc/kit/config';
import { GatewayConfigSchema } from '../services/gateway/src/config.js';
import { ConfigSchema as OperatorServiceConfig } from '../services/operator-service/src/config.js';
import { FlightRequestServiceConfig } from '../services/flight-request-service/src/config.js';
import { WebhookServiceConfig } from '../services/webhook-service/src/config.js';

const START = resolve(dirname(fileURLToPath(import.meta.url)), 'start.sh');
const SCHEMAS: Record<string, TObject> = {
  gateway: GatewayConfigSchema,
  'operator-service': OperatorServiceConfig,
  'flight-request-service': FlightRequestServiceConfig,
  'webhook-service': WebhookServiceConfig,
};
const SECRETS = ['INTERNAL_TOKEN_PRIVATE_KEY', 'ADMIN_API_KEY', 'WEBHOOK_SECRET_KEY', 'AUTHORISATION_SIGNING_KEY', 'AUTHORISATION_SIGNING_KEY_FILE'];

/** The names start.sh's `own_env` gives one process, run by bash as the script runs it (with stand-in values). */
function ownEnv(service: string): string[] {
  const script = readFileSync(START, 'utf8');
  const own = /^own_env\(\) \{[\s\S]*?^\}$/m.exec(script)?.[0];
  if (own === undefined) throw new Error('start.sh has no own_env function');
  const standIns =
    'INTERNAL_TOKEN_PRIVATE_KEY=p INTERNAL_TOKEN_PUBLIC_KEY=p GATEWAY_METRICS_PORT=1 MONGO_URL=m OPERATOR_SERVICE_PORT=1 FLIGHT_REQUEST_SERVICE_PORT=1 WEBHOOK_SERVICE_PORT=1 ADMIN_API_KEY=a AUTHORISATION_SIGNING_KEY_FILE=f WEBHOOK_SECRET_KEY=w ALLOW_HTTP_WEBHOOKS=true';
  const output = execFileSync('bash', ['-c', `set -euo pipefail; ${own}\n${standIns}; own_env "$1"`, 'own-env', service]).toString('utf8');
  return output
    .split('\0')
    .filter(Boolean)
    .map((pair) => pair.slice(0, pair.indexOf('=')));
}

describe('scripts/start.sh: what each process is given', () => {
  for (const [service, schema] of Object.entries(SCHEMAS)) {
    it(`${service}: only variables its configuration reads`, () => {
      const reads = new Set(Object.keys(schema.properties).flatMap((name) => [name, `${name}_FILE`]));
      for (const name of [...ownEnv(service), 'PORT', 'MONGO_URL', 'MONGO_DB', ...Object.keys(amqpConfig), ...Object.keys(commonConfig)]) {
        if (['MONGO_URL', 'MONGO_DB'].includes(name) && !('MONGO_DB' in schema.properties)) continue;
        expect(reads.has(name), `${service} is given ${name}`).to.equal(true);
      }
    });
  }

  it('every secret goes to the one process that reads it', () => {
    const given = Object.fromEntries(Object.keys(SCHEMAS).map((service) => [service, ownEnv(service)]));
    for (const secret of SECRETS) {
      const holders = Object.entries(given)
        .filter(([, names]) => names.includes(secret))
        .map(([service]) => service);
      expect(holders.length, `${secret}: ${holders.join(', ')}`).to.be.at.most(1);
    }
    expect(given['gateway']).to.include('INTERNAL_TOKEN_PRIVATE_KEY');
    expect(given['operator-service']).to.include('ADMIN_API_KEY');
    expect(given['webhook-service']).to.include('WEBHOOK_SECRET_KEY');
  });
});
