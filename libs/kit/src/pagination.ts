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
