import { ValidationError } from './errors.js';

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

/** One entry of `meta.links`, Laravel's page links for rendering a pager. */
export interface PagerLink {
  url: string | null;
  label: string;
  active: boolean;
}

export interface PageMeta {
  current_page: number;
  from: number | null;
  last_page: number;
  links: PagerLink[];
  path: string;
  per_page: number;
  to: number | null;
  total: number;
  /** Large lists: where a cursor walk continues after this page (null on the last one). */
  next_cursor?: string | null;
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
  nextCursor?: string | null,
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
  const prev = request.page > 1 ? link(Math.min(request.page - 1, lastPage)) : null;
  const next = request.page < lastPage ? link(request.page + 1) : null;
  return {
    data: items,
    links: { first: link(1), last: link(lastPage), prev, next },
    meta: {
      current_page: request.page,
      from,
      last_page: lastPage,
      links: [
        { url: prev, label: '&laquo; Previous', active: false },
        ...pagerWindow(request.page, lastPage).map((page) =>
          page === GAP ? { url: null, label: '...', active: false } : { url: link(page), label: String(page), active: page === request.page },
        ),
        { url: next, label: 'Next &raquo;', active: false },
      ],
      path,
      per_page: request.per_page,
      to: from === null ? null : from + items.length - 1,
      total,
      ...(nextCursor === undefined ? {} : { next_cursor: nextCursor }),
    },
  };
}

const GAP = 0;
/** Laravel's `UrlWindow` with its default of 3 pages on each side of the current one. */
const ON_EACH_SIDE = 3;

/** The page numbers Laravel's pager shows, with GAP where it writes "...". */
export function pagerWindow(current: number, lastPage: number): number[] {
  const range = (first: number, last: number) => Array.from({ length: Math.max(0, last - first + 1) }, (_, i) => first + i);
  if (lastPage < ON_EACH_SIDE * 2 + 8) return range(1, lastPage);
  const window = ON_EACH_SIDE + 4;
  if (current <= window) return [...range(1, window + ON_EACH_SIDE), GAP, lastPage - 1, lastPage];
  if (current > lastPage - window) return [1, 2, GAP, ...range(lastPage - (window + ON_EACH_SIDE - 1), lastPage)];
  return [1, 2, GAP, ...range(current - ON_EACH_SIDE, current + ON_EACH_SIDE), GAP, lastPage - 1, lastPage];
}

/**
 * How far a large list counts: past it, `meta.total` says this many (and `last_page` follows),
 * so a page costs at most this many index keys whatever the collection holds.
 */
export const COUNT_LIMIT = 10_000;

/** How long one list query may run before the list answers 503 rather than hold the database. */
export const LIST_TIME_LIMIT_MS = 5_000;

/** Where a cursor page starts: after the item with this sort time and id, in the list's order. */
export interface CursorPosition {
  at: Date;
  id: string;
}

/** A cursor is opaque to clients: base64url of `[<sort time in ms>, <id>]`. */
export function encodeCursor(position: CursorPosition): string {
  return Buffer.from(JSON.stringify([position.at.getTime(), position.id])).toString('base64url');
}

/** The position a cursor names, or null when it is not one this service wrote. */
export function decodeCursor(cursor: string): CursorPosition | null {
  try {
    const decoded: unknown = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
    if (!Array.isArray(decoded) || decoded.length !== 2) return null;
    const [ms, id] = decoded as unknown[];
    if (typeof ms !== 'number' || !Number.isSafeInteger(ms) || typeof id !== 'string' || id.length === 0 || id.length > 100) return null;
    const at = new Date(ms);
    return Number.isNaN(at.getTime()) ? null : { at, id };
  } catch {
    return null;
  }
}

/**
 * The keyset condition "after `position`" for a list sorted by `(timeField, _id)`, both in
 * `direction`: the same index that serves the sort serves each branch.
 */
export function afterPosition(timeField: string, direction: 1 | -1, position: CursorPosition): Record<string, unknown> {
  const beyond = direction === -1 ? '$lt' : '$gt';
  return { $or: [{ [timeField]: { [beyond]: position.at } }, { [timeField]: position.at, _id: { [beyond]: position.id } }] };
}

/** What a large list was asked for: a numbered page, or the page after a cursor's position. */
export type ListRequest = { page: PageRequest; after?: undefined } | { page?: undefined; after: CursorPosition; per_page: number };

/**
 * The list request of a validated query. `sentPage` is whether the client sent `page` (its
 * default fills it in otherwise): with `cursor` too, the two would disagree on where to start.
 */
export function listRequest(query: { page: number; per_page: number; cursor?: string | undefined }, sentPage: boolean): ListRequest {
  if (query.cursor === undefined) return { page: { page: query.page, per_page: query.per_page } };
  if (sentPage) throw ValidationError.of('cursor', 'The cursor field cannot be combined with page.');
  const after = decodeCursor(query.cursor);
  if (!after) throw ValidationError.of('cursor', 'The cursor is not valid.');
  return { after, per_page: query.per_page };
}

/** Where a store reads a page from: `skip` items in, or after a cursor's position. */
export type ListPosition = { skip: number; after?: undefined; limit: number } | { skip?: undefined; after: CursorPosition; limit: number };

export function listPosition(request: ListRequest): ListPosition {
  return request.page ? { skip: skipFor(request.page), limit: request.page.per_page } : { after: request.after, limit: request.per_page };
}

/** A page of items; `total` (counted up to COUNT_LIMIT) only for a numbered page. */
export interface ListPage<T> {
  items: T[];
  total: number | undefined;
  nextCursor: string | null;
}

/** The page in `found`, read with one item more than `limit`: that one says whether a next page exists. */
export function pageOfFound<T>(found: T[], limit: number, positionOf: (item: T) => CursorPosition): { items: T[]; nextCursor: string | null } {
  const items = found.slice(0, limit);
  const last = items.at(-1);
  return { items, nextCursor: found.length > limit && last ? encodeCursor(positionOf(last)) : null };
}

/** Laravel's `CursorPaginator` envelope (what `cursorPaginate()` renders): no totals, a link to the next page. */
export interface CursorEnvelope<T> {
  data: T[];
  links: { first: null; last: null; prev: null; next: string | null };
  meta: { path: string; per_page: number; next_cursor: string | null; prev_cursor: null };
}

/** `query` holds the filters to repeat in the next link; `nextCursor` is null on the last page. */
export function cursorPaginate<T>(
  items: T[],
  nextCursor: string | null,
  perPage: number,
  path: string,
  query: Record<string, string | undefined> = {},
): CursorEnvelope<T> {
  let next: string | null = null;
  if (nextCursor !== null) {
    const params = new URLSearchParams();
    for (const [name, value] of Object.entries(query)) if (value !== undefined) params.set(name, value);
    params.set('per_page', String(perPage));
    params.set('cursor', nextCursor);
    next = `${path}?${params.toString()}`;
  }
  return {
    data: items,
    links: { first: null, last: null, prev: null, next },
    meta: { path, per_page: perPage, next_cursor: nextCursor, prev_cursor: null },
  };
}

/** A large list's answer: the page envelope (with `next_cursor`) for a numbered page, the cursor envelope after a cursor. */
export function renderList<T>(
  request: ListRequest,
  items: T[],
  found: Pick<ListPage<unknown>, 'total' | 'nextCursor'>,
  path: string,
  query: Record<string, string | undefined> = {},
): PageEnvelope<T> | CursorEnvelope<T> {
  if (request.page) return paginate(items, found.total ?? 0, request.page, path, query, found.nextCursor);
  return cursorPaginate(items, found.nextCursor, request.per_page, path, query);
}
