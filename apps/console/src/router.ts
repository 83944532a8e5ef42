import { useEffect, useState } from 'preact/hooks';

/** The console's routes live under `/console/`; the gateway answers any of them with the page (SPA fallback). */
export const BASE = '/console';

const CHANGED = 'dfc-console-navigate';

/** `replace`: the step leaves no history entry (a redirect, so Back does not bounce). */
export function navigate(path: string, replace = false): void {
  if (replace) history.replaceState(null, '', `${BASE}${path}`);
  else history.pushState(null, '', `${BASE}${path}`);
  dispatchEvent(new Event(CHANGED));
}

/** The path below `/console`, re-rendering on navigation (links, back and forward). */
export function usePath(): string {
  const [path, setPath] = useState(currentPath);
  useEffect(() => {
    const update = () => setPath(currentPath());
    addEventListener('popstate', update);
    addEventListener(CHANGED, update);
    return () => {
      removeEventListener('popstate', update);
      removeEventListener(CHANGED, update);
    };
  }, []);
  return path;
}

function currentPath(): string {
  const path = location.pathname.startsWith(BASE) ? location.pathname.slice(BASE.length) : location.pathname;
  return path === '' ? '/' : path;
}

/** `/requests/:uuid` against `/requests/abc` → `{ uuid: 'abc' }`, or null. */
export function match(pattern: string, path: string): Record<string, string> | null {
  const want = pattern.split('/');
  const got = path.replace(/\/$/, '').split('/');
  if (want.length !== got.length) return null;
  const parameters: Record<string, string> = {};
  for (const [index, part] of want.entries()) {
    const value = got[index] ?? '';
    if (part.startsWith(':')) parameters[part.slice(1)] = decodeURIComponent(value);
    else if (part !== value) return null;
  }
  return parameters;
}
