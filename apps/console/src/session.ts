import { Api, ApiError } from './api';

export type Role = 'reviewer' | 'operator' | 'admin';

export interface Session {
  key: string;
  role: Role;
  /** Operator keys: the operator the key belongs to (submissions name it). */
  operatorUuid: string | null;
  /** Reviewer keys: their authority, when the queue showed it at sign-in (the API names it nowhere else). */
  authority: string | null;
  /** Who is signed in, for the header. */
  label: string;
}

const STORAGE_KEY = 'dfc-console-session';

/** sessionStorage only: the key leaves with the tab, and is never put in a URL or a log. */
export function loadSession(): Session | null {
  const stored = sessionStorage.getItem(STORAGE_KEY);
  if (stored === null) return null;
  try {
    return JSON.parse(stored) as Session;
  } catch {
    sessionStorage.removeItem(STORAGE_KEY);
    return null;
  }
}

export function saveSession(session: Session | null): void {
  if (session === null) sessionStorage.removeItem(STORAGE_KEY);
  else sessionStorage.setItem(STORAGE_KEY, JSON.stringify(session));
}

/**
 * The public API has no "who am I" route, so the role is read from what the key
 * may do: only admins list retired zones (every key reads published ones),
 * reviewers (and admins) read the review queue,
 * and an operator key reads its own operator record (whose uuid the operator
 * got at registration). Each probe is a read that changes nothing.
 */
export async function signIn(key: string, operatorUuid: string): Promise<Session> {
  const api = new Api(key);
  if (await allowed(() => api.get('/api/zones?status=retired&per_page=1')))
    return { key, role: 'admin', operatorUuid: null, authority: null, label: 'Admin' };
  const reviews = await attempt(() => api.get<{ data: Array<{ authority: string }> }>('/api/reviews?per_page=1'));
  if (reviews !== null) {
    const authority = reviews.data[0]?.authority ?? null;
    return { key, role: 'reviewer', operatorUuid: null, authority, label: authority === null ? 'Reviewer' : `Reviewer · ${authority}` };
  }
  if (operatorUuid.trim() === '')
    throw new ApiError(422, 'This is an operator key: give your operator UUID too.', {
      operator_uuid: ['The operator UUID is required for an operator key.'],
    });
  try {
    const operator = await api.get<{ data: { uuid: string; company_name: string } }>(`/api/operators/${encodeURIComponent(operatorUuid.trim())}`);
    return { key, role: 'operator', operatorUuid: operator.data.uuid, authority: null, label: operator.data.company_name };
  } catch (error) {
    if (error instanceof ApiError && error.status === 404) {
      throw new ApiError(422, 'The key does not belong to this operator.', { operator_uuid: ['No operator with this UUID belongs to the key.'] });
    }
    throw error;
  }
}

/** True on success, false on 403; any other failure (401: a bad key) is the caller's. */
async function allowed(call: () => Promise<unknown>): Promise<boolean> {
  return (await attempt(call)) !== null;
}

async function attempt<T>(call: () => Promise<T>): Promise<T | null> {
  try {
    return await call();
  } catch (error) {
    if (error instanceof ApiError && error.status === 403) return null;
    throw error;
  }
}
