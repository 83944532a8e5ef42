import Koa from 'koa';

/**
 * A koa app whose JSON bodies are serialised as they are set, the one way every app here is made.
 *
 * koa's `body` setter asks `value instanceof Response` of every body that is not a string, a Buffer,
 * a stream or a Blob, and the first read of Node's global `Response` loads Node's bundled fetch
 * (undici): 7–8 MiB of RSS in a process that never fetches (docs/performance.md, "Memory"). A plain
 * object or array is handed to koa as the JSON text koa would have written, under a JSON type, so
 * that question is never asked; every other body takes koa's own path.
 */
export function createKoa(): Koa {
  const app = new Koa();
  const koaBody = koaBodyAccessor(app);
  Object.defineProperty(app.response, 'body', {
    configurable: true,
    get: koaBody.get,
    set(this: Koa.Response, value: unknown) {
      if (!isPlainJson(value)) return koaBody.set.call(this, value);
      if (!/\bjson\b/i.test(this.type)) this.type = 'json';
      koaBody.set.call(this, JSON.stringify(value));
    },
  });
  return app;
}

interface BodyAccessor {
  get: () => unknown;
  set: (value: unknown) => void;
}

function koaBodyAccessor(app: Koa): BodyAccessor {
  const descriptor = Object.getOwnPropertyDescriptor(Object.getPrototypeOf(app.response) as object, 'body');
  if (descriptor?.get === undefined || descriptor.set === undefined) {
    throw new Error("koa's response has no body accessor to wrap");
  }
  // eslint-disable-next-line @typescript-eslint/unbound-method -- both are called with the response as `this` (`.call`)
  return { get: descriptor.get, set: descriptor.set };
}

function isPlainJson(value: unknown): value is object {
  if (typeof value !== 'object' || value === null) return false;
  if (Array.isArray(value)) return true;
  const prototype: unknown = Object.getPrototypeOf(value);
  return prototype === Object.prototype || prototype === null;
}
