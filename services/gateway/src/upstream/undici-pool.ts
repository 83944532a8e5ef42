import { createRequire } from 'node:module';
import type { Pool as UndiciPool } from 'undici';

/**
 * undici's `Pool`, loaded alone. The package's entry point loads all of undici (fetch, WebSocket,
 * caches, cookies), and its cookies module reads the global `Headers`, which loads Node's own bundled
 * copy of undici as well: 12.7 MiB of RSS on Node 24 for the one class the gateway uses
 * (docs/performance.md, item 29). The package has no exports map, so the module's path is reachable;
 * package-lock.json pins the version and the proxy's tests exercise it.
 */
export const Pool = createRequire(import.meta.url)('undici/lib/dispatcher/pool.js') as typeof UndiciPool;
export type Pool = UndiciPool;
