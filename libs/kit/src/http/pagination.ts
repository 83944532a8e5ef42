/** Laravel's `LengthAwarePaginator` envelope, built from the page the query asked for. */
export interface PageRequest {
  page: number;
  per_page: number;
}

export interface PageLinks {
  first: string;
  last: string;
  prev: string | null;
  next: string | null;
}

export interface PageMeta {
  current_page: number;
  from: number | null;
  last_page: number;
  path: string;
  per_page: number;
  to: number | null;
  total: number;
}

export interface PageEnvelope<T> {
  data: T[];
  links: PageLinks;
  meta: PageMeta;
}

export function skipFor(request: PageRequest): number {
  return (request.page - 1) * request.per_page;
}

/**
 * `path` is the public URL of the list without query; `query` holds the
 * filters to repeat in every link (page is set per link).
 */
export function paginate<T>(
  items: T[],
  total: number,
  request: PageRequest,
  path: string,
  query: Record<string, string | undefined> = {},
): PageEnvelope<T> {
  const lastPage = Math.max(1, Math.ceil(total / request.per_page));
  const link = (page: number) => {
    const params = new URLSearchParams();
    for (const [name, value] of Object.entries(query)) if (value !== undefined) params.set(name, value);
    params.set('per_page', String(request.per_page));
    params.set('page', String(page));
    return `${path}?${params.toString()}`;
  };
  const from = items.length > 0 ? skipFor(request) + 1 : null;
  return {
    data: items,
    links: {
      first: link(1),
      last: link(lastPage),
      prev: request.page > 1 ? link(Math.min(request.page - 1, lastPage)) : null,
      next: request.page < lastPage ? link(request.page + 1) : null,
    },
    meta: {
      current_page: request.page,
      from,
      last_page: lastPage,
      path,
      per_page: request.per_page,
      to: from === null ? null : from + items.length - 1,
      total,
    },
  };
}

/**
 * The public URL of the current route: services trust the gateway's
 * X-Forwarded-Proto/Host (`app.proxy`), so links point at the gateway.
 * (Not `ctx.origin`: in koa 3 that is the client's `Origin` header.)
 */
export function publicPath(ctx: { protocol: string; host: string; path: string }): string {
  return publicUrl(ctx, ctx.path);
}

/**
 * An absolute URL of `path` at the gateway, e.g. for `Location`. (Koa 3's
 * `ctx.origin` is the request's Origin header, not this.)
 */
export function publicUrl(ctx: { protocol: string; host: string }, path: string): string {
  return `${ctx.protocol}://${ctx.host}${path}`;
}
