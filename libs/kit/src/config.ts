import { readFileSync } from 'node:fs';
import { Type, type Static, type TObject, type TProperties } from '@sinclair/typebox';
import { Ajv } from 'ajv';

/**
 * Typed configuration read from the environment. Each service declares a TypeBox
 * object of its variables; values are coerced (ports become numbers) and checked
 * once at start, so a bad deployment fails fast with every offending name listed.
 * Any variable may instead be given as `<NAME>_FILE`, a path to read it from:
 * how Docker and Kubernetes hand over mounted secrets.
 */
export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(`Invalid configuration:\n  ${problems.join('\n  ')}`);
    this.name = 'ConfigError';
  }
}

const ajv = new Ajv({ coerceTypes: true, useDefaults: true, allErrors: true });

export function loadConfig<P extends TProperties>(schema: TObject<P>, env: NodeJS.ProcessEnv = process.env): Static<TObject<P>> {
  const candidate: Record<string, unknown> = {};
  const problems: string[] = [];
  for (const key of Object.keys(schema.properties)) {
    const value = env[key] ?? readSecretFile(key, env[`${key}_FILE`], problems);
    if (value !== undefined && value !== '') candidate[key] = value;
  }
  if (problems.length > 0) throw new ConfigError(problems);
  const validate = ajv.compile(schema);
  if (!validate(candidate)) {
    const problems = (validate.errors ?? []).map((error) => {
      const name = error.keyword === 'required' ? String(error.params['missingProperty']) : error.instancePath.replace(/^\//, '');
      return error.keyword === 'required' ? `${name} is required` : `${name} ${error.message ?? 'is invalid'}`;
    });
    throw new ConfigError(problems);
  }
  return candidate as Static<TObject<P>>;
}

function readSecretFile(key: string, path: string | undefined, problems: string[]): string | undefined {
  if (!path) return undefined;
  try {
    return readFileSync(path, 'utf8').trim();
  } catch {
    problems.push(`${key}_FILE names a file that cannot be read: ${path}`);
    return undefined;
  }
}

/** Variables every service shares. Spread into a service's own schema. */
export const commonConfig = {
  LOG_LEVEL: Type.Union(
    ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'].map((level) => Type.Literal(level)),
    { default: 'info' },
  ),
  HOST: Type.String({ default: '127.0.0.1' }),
  SHUTDOWN_GRACE_MS: Type.Integer({ minimum: 0, default: 10_000 }),
  /** A request whose headers and body have not all arrived within this time gets a JSON 408. */
  REQUEST_TIMEOUT_MS: Type.Integer({ minimum: 100, default: 15_000 }),
  /** Request line and headers, in bytes; larger gets a JSON 431. */
  MAX_HEADER_BYTES: Type.Integer({ minimum: 1024, default: 16 * 1024 }),
};

export const mongoConfig = {
  MONGO_URL: Type.String({ pattern: '^mongodb(\\+srv)?://', default: 'mongodb://127.0.0.1:27017' }),
  MONGO_DB: Type.String({ minLength: 1 }),
  /**
   * Connections to the database per process, at most (the driver's own default is larger than a process of ours
   * keeps busy); queries beyond them wait for a free one. Every replica of every service opens its own pool, so the
   * database sees replicas × this.
   */
  MONGO_MAX_POOL_SIZE: Type.Integer({ minimum: 1, default: 20 }),
};

export const amqpConfig = {
  AMQP_URL: Type.String({ pattern: '^amqps?://', default: 'amqp://guest:guest@127.0.0.1:5672' }),
  AMQP_EXCHANGE: Type.String({ minLength: 1, default: 'dfc.events' }),
};

/**
 * Public halves of the gateway's internal-token signing keys, as PEM (SPKI): one key, or two
 * concatenated while a rotation overlaps them (docs/operations.md "Key and secret rotation").
 */
export const internalTokenVerifyConfig = {
  INTERNAL_TOKEN_PUBLIC_KEY: Type.String({ minLength: 1 }),
};

const PUBLIC_KEY_PEM = /-----BEGIN PUBLIC KEY-----[\s\S]+?-----END PUBLIC KEY-----/g;

/** The PEM public keys (SPKI) in a value that concatenates zero or more of them. */
export function publicKeyPems(value: string): string[] {
  return value.match(PUBLIC_KEY_PEM) ?? [];
}
