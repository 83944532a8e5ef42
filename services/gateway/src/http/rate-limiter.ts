import { createRequire } from 'node:module';
import type { RateLimiterMemory as MemoryLimiter, RateLimiterRes as LimiterResult } from 'rate-limiter-flexible';

/**
 * rate-limiter-flexible's in-memory limiter and the result it answers with, loaded alone. The package's
 * entry point loads every limiter it has, RateLimiterCluster among them, which loads node:cluster and with
 * it child_process and dgram: 2.6 MiB of RSS on Node 24 for the two classes the gateway uses, 0.75 this
 * way (docs/performance.md, item 30). The package has no exports map, so the modules' paths are reachable;
 * package-lock.json pins the version and the rate-limit tests exercise both.
 */
const require = createRequire(import.meta.url);

export const RateLimiterMemory = require('rate-limiter-flexible/lib/RateLimiterMemory.js') as typeof MemoryLimiter;
export type RateLimiterMemory = MemoryLimiter;
export const RateLimiterRes = require('rate-limiter-flexible/lib/RateLimiterRes.js') as typeof LimiterResult;
export type RateLimiterRes = LimiterResult;
