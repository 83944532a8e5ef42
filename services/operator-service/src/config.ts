import { Type, type Static } from '@sinclair/typebox';
import { amqpConfig, commonConfig, internalTokenVerifyConfig, loadConfig, mongoConfig } from '@dfc/kit/config';
import { API_KEY_PATTERN } from '@dfc/contracts';

/**
 * argon2id defaults are the first of the OWASP Password Storage Cheat Sheet's
 * configurations of equal strength (m = 46 MiB, t = 1, p = 1): memory-hard
 * enough to make GPU guessing costly, cheap enough that registration and key
 * issuance stay responsive. Of those configurations it is the one whose working
 * memory goes back to the system after each hash: the C allocators map an
 * allocation that large on its own and unmap it when freed, where glibc keeps a
 * smaller one (such as the 19 MiB configuration's) in the arena of every
 * thread-pool thread that ever hashed. Raise them together with the hardware.
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
  ARGON2_MEMORY_KIB: Type.Integer({ minimum: 8192, default: 47104 }),
  ARGON2_TIME_COST: Type.Integer({ minimum: 1, default: 1 }),
  ARGON2_PARALLELISM: Type.Integer({ minimum: 1, maximum: 16, default: 1 }),
});
export type Config = Static<typeof ConfigSchema>;

export function loadServiceConfig(env: NodeJS.ProcessEnv = process.env): Config {
  return loadConfig(ConfigSchema, env);
}
