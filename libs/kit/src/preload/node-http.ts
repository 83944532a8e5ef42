import { createRequire } from 'node:module';

/**
 * Preloaded by the image's ENTRYPOINT (`--import=@dfc/kit/preload`, ./index.ts), before any other module:
 * makes node:http's ES module facade without loading Node's bundled undici.
 *
 * Since Node 22, node:http exposes `WebSocket`, `CloseEvent` and `MessageEvent` as lazy getters that
 * load Node's own copy of undici (a 740 KB script). The first `import … from 'node:http'` in an ES
 * module (our services' own, @koa/router's) builds the facade of named exports by reading every
 * property once, getters included, so every service loaded and compiled that script at start and kept
 * it: 2–3 MiB of RSS per service on Node 24 (docs/performance.md, item 28). Here the facade is built
 * while those three read as undefined, then the getters are put back: `http.WebSocket` on the module
 * object still loads the class on first use; only the named imports `{ WebSocket, CloseEvent,
 * MessageEvent } from 'node:http'`, which no code of ours or of our dependencies uses, are undefined.
 */
const UNDICI_GETTERS = ['WebSocket', 'CloseEvent', 'MessageEvent'];

const nodeHttp = createRequire(import.meta.url)('node:http') as object;
const getters = UNDICI_GETTERS.flatMap((name) => {
  const descriptor = Object.getOwnPropertyDescriptor(nodeHttp, name);
  return descriptor?.get && descriptor.configurable ? [{ name, descriptor }] : [];
});

for (const { name, descriptor } of getters) {
  Object.defineProperty(nodeHttp, name, { configurable: true, enumerable: descriptor.enumerable, get: () => undefined });
}
try {
  await import('node:http');
} finally {
  for (const { name, descriptor } of getters) Object.defineProperty(nodeHttp, name, descriptor);
}
