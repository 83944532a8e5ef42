import type { Middleware } from 'koa';
import { MethodNotAllowedError } from '../errors.js';

interface MatchedLayer {
  methods: string[];
  paramNames: unknown[];
}

/**
 * Placed after the routers: reached only when no route took the request. If
 * a route matched the path with other methods, the answer is 405 with `Allow`
 * (an `OPTIONS` request gets 204 with `Allow`), whatever the method, so
 * `TRACE` or `PROPFIND` are refused like `PUT`. Otherwise the request goes on
 * (a 404 in the end). koa-router's own `allowedMethods` answers 501 for
 * methods outside its list and sets no `Allow` when it throws; methods Node
 * does not know at all never get here (the server answers them 501).
 */
export function methodRules(): Middleware {
  return async (ctx, next) => {
    const matched = ((ctx as unknown as { matched?: MatchedLayer[] }).matched ?? []).filter((layer) => layer.methods.length > 0);
    // A literal path names its own resource: `/zones/import` is not `/zones/:id`.
    const literal = matched.filter((layer) => layer.paramNames.length === 0);
    const allowed = [...new Set((literal.length > 0 ? literal : matched).flatMap((layer) => layer.methods))];
    if (allowed.length === 0) {
      await next();
      return;
    }
    if (!allowed.includes('OPTIONS')) allowed.push('OPTIONS');
    ctx.set('Allow', allowed.join(', '));
    if (ctx.method === 'OPTIONS') {
      ctx.status = 204;
      return;
    }
    throw new MethodNotAllowedError();
  };
}
