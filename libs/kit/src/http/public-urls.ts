/**
 * The public URL of the current route: services trust the gateway's
 * X-Forwarded-Proto/Host (`app.proxy`), so links point at the gateway.
 * (Not `ctx.origin`: in koa 3 that is the client's `Origin` header.)
 */
export function publicPath(ctx: { protocol: string; host: string; path: string }): string {
  return publicUrl(ctx, ctx.path);
}

/**
 * An absolute URL of `path` at the gateway. (Koa 3's `ctx.origin` is the
 * request's Origin header, not this.)
 */
export function publicUrl(ctx: { protocol: string; host: string }, path: string): string {
  return `${ctx.protocol}://${ctx.host}${path}`;
}

/**
 * The one rule for `Location` on every create: the absolute gateway URL under
 * the current version, `/api/v1` + the resource path (e.g. `/operators/<uuid>`),
 * as the spec writes the flight request route.
 */
export function resourceLocation(ctx: { protocol: string; host: string }, resourcePath: string): string {
  return publicUrl(ctx, `/api/v1${resourcePath}`);
}
