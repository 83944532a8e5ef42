import { Type, type Static } from '@sinclair/typebox';
import { amqpConfig, commonConfig, internalTokenVerifyConfig, loadConfig, mongoConfig } from '@dfc/kit/config';
import { API_KEY_PATTERN } from '@dfc/contracts';

/**
 * argon2id defaults are OWASP's Password Storage Cheat Sheet recommendation
 * (m = 19 MiB, t = 2, p = 1): memory-hard enough to make GPU guessing costly,
 * cheap enough (~60 ms on one core) that registration and key issuance stay
 * responsive. Raise them together with the hardware.
 */
export const ConfigSchema = Type.Object({
  ...commonConfig,
  ...mongoConfig,
  ...amqpConfig,
  ...internalTokenVerifyConfig,
  PORT: Type.Integer({ minimum: 1, maximum: 65535, default: 8081 }),
  MONGO_DB: Type.String({ minLength: 1, default: 'dfc_operators' }),
  /** The first admin key, upserted at start (docs/architecture.md "API keys"). */
  ADMIN_API_KEY: Type.String({ pattern: API_KEY_PATTERN.source }),
  ARGON2_MEMORY_KIB: Type.Integer({ minimum: 8192, default: 19456 }),
  ARGON2_TIME_COST: Type.Integer({ minimum: 1, default: 2 }),
  ARGON2_PARALLELISM: Type.Integer({ minimum: 1, maximum: 16, default: 1 }),
});
export type Config = Static<typeof ConfigSchema>;

export function loadServiceConfig(env: NodeJS.ProcessEnv = process.env): Config {
  return loadConfig(ConfigSchema, env);
}
