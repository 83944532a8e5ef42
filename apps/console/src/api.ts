import type { SharedVolume } from '@dfc/contracts';

/**
 * The console's one way to the API: same origin, the pasted key in `X-API-Key`
 * (never in a URL), JSON in and out. Every answer that is not 2xx becomes an
 * `ApiError` carrying what the screens show where it belongs: the message, the
 * 422 field messages, a 409's shared volumes and a 429's `Retry-After`.
 */
export interface Page<T> {
  data: T[];
  meta: { current_page: number; last_page: number; per_page: number; total: number };
}

export class ApiError extends Error {
  constructor(
    readonly status: number,
    message: string,
    /** 422: field path → messages, as the API names the fields. */
    readonly fields: Record<string, string[]> = {},
    /** 429: seconds to wait, from `Retry-After`. */
    readonly retryAfter: number | null = null,
    /** 409 of a decision whose airspace is taken: the volumes shared with the approved flights that hold it. */
    readonly conflicts: SharedVolume[] = [],
  ) {
    super(message);
  }

  /** The messages of one field and of every field under it (`flight_area` takes `flight_area.features.0...`). */
  fieldMessages(prefix: string): string[] {
    return Object.entries(this.fields)
      .filter(([field]) => field === prefix || field.startsWith(`${prefix}.`))
      .flatMap(([, messages]) => messages);
  }
}

export class Api {
  constructor(private readonly key: string) {}

  get<T>(path: string): Promise<T> {
    return this.send<T>('GET', path);
  }

  post<T>(path: string, body?: unknown): Promise<T> {
    return this.send<T>('POST', path, body);
  }

  delete<T>(path: string, body?: unknown): Promise<T> {
    return this.send<T>('DELETE', path, body);
  }

  async send<T>(method: string, path: string, body?: unknown): Promise<T> {
    const headers: Record<string, string> = { 'X-API-Key': this.key, Accept: 'application/json' };
    if (body !== undefined) headers['Content-Type'] = 'application/json';
    const response = await fetch(path, {
      method,
      headers,
      body: body === undefined ? null : JSON.stringify(body),
      credentials: 'omit',
      cache: 'no-store',
    });
    return readAnswer<T>(response);
  }
}

/** A 2xx answer's JSON (undefined when it has none, a 204), or the `ApiError` any other answer is. */
export async function readAnswer<T>(response: Response): Promise<T> {
  const parsed = await bodyOf(response);
  if (!response.ok) throw errorFrom(response, parsed);
  return parsed as T;
}

/**
 * The answer's JSON; undefined when it has none: a 204, or an error some proxy
 * in front of the gateway wrote as HTML or text, which its status then describes.
 */
async function bodyOf(response: Response): Promise<unknown> {
  const text = await response.text();
  if (text === '') return undefined;
  try {
    return JSON.parse(text) as unknown;
  } catch (failure) {
    if (response.ok) throw failure;
    return undefined;
  }
}

function errorFrom(response: Response, body: unknown): ApiError {
  const shaped = (body ?? {}) as { message?: unknown; errors?: unknown; conflicts?: unknown };
  const message = typeof shaped.message === 'string' ? shaped.message : `${response.status} ${response.statusText}`.trim();
  const fields = typeof shaped.errors === 'object' && shaped.errors !== null ? (shaped.errors as Record<string, string[]>) : {};
  const conflicts = Array.isArray(shaped.conflicts) ? (shaped.conflicts as SharedVolume[]) : [];
  const retryAfter = response.headers.get('Retry-After');
  return new ApiError(response.status, message, fields, retryAfter === null ? null : Number(retryAfter), conflicts);
}

/** `?a=1&b=2` without the empty values. */
export function query(parameters: Record<string, string | number | undefined>): string {
  const search = new URLSearchParams();
  for (const [name, value] of Object.entries(parameters)) if (value !== undefined && value !== '') search.set(name, String(value));
  const text = search.toString();
  return text === '' ? '' : `?${text}`;
}
