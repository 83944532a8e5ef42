/**
 * The address the gateway calls itself in `Location`, page links and the
 * OpenAPI document's `servers`. A `Host` header is the client's to write, so
 * it is never taken as it comes: a configured public base URL wins, and
 * without one only hosts the deployment allows are reflected.
 */
export interface PublicOrigin {
  protocol: 'http' | 'https';
  /** `host[:port]`, lower-case. */
  host: string;
}

export interface PublicOriginSettings {
  /** `PUBLIC_BASE_URL`: scheme, host and port; empty when not configured. */
  baseUrl: string;
  /** `ALLOWED_HOSTS`: comma-separated `host[:port]` values; empty for the loopback default. */
  allowedHosts: string;
  /** The gateway's listen port: the default allows the loopback names on it (any port when 0). */
  port: number;
}

/** Where a request's links point; undefined when its Host is not one the deployment allows. */
export type PublicOriginOf = (request: { protocol: string; host: string }) => PublicOrigin | undefined;

const LOOPBACK_NAMES = ['127.0.0.1', 'localhost', '[::1]'];
const LOOPBACK_ANY_PORT = /^(?:127\.0\.0\.1|localhost|\[::1\])(?::\d{1,5})?$/;

export function publicOriginResolver(settings: PublicOriginSettings): PublicOriginOf {
  if (settings.baseUrl !== '') {
    const fixed = parseBaseUrl(settings.baseUrl);
    return () => fixed;
  }
  const allowed = allowedHostMatcher(settings);
  return (request) => {
    const host = request.host.toLowerCase();
    if (!allowed(host)) return undefined;
    return { protocol: request.protocol === 'https' ? 'https' : 'http', host };
  };
}

/** `https://api.example.org` (a trailing slash tolerated) → its scheme and host; anything more is a configuration error. */
export function parseBaseUrl(text: string): PublicOrigin {
  const url = new URL(text);
  if ((url.protocol !== 'http:' && url.protocol !== 'https:') || url.username || url.password || url.search || url.hash || url.pathname !== '/') {
    throw new Error(`PUBLIC_BASE_URL must be scheme://host[:port] with nothing after it, not ${text}`);
  }
  return { protocol: url.protocol === 'https:' ? 'https' : 'http', host: url.host };
}

function allowedHostMatcher(settings: PublicOriginSettings): (host: string) => boolean {
  const listed = settings.allowedHosts
    .split(',')
    .map((entry) => entry.trim().toLowerCase())
    .filter((entry) => entry !== '');
  if (listed.length > 0) {
    const hosts = new Set(listed);
    return (host) => hosts.has(host);
  }
  // Port 0 takes whatever port is free (tests): which one is known only once listening.
  if (settings.port === 0) return (host) => LOOPBACK_ANY_PORT.test(host);
  const hosts = new Set(LOOPBACK_NAMES.flatMap((name) => (settings.port === 80 ? [name, `${name}:80`] : [`${name}:${settings.port}`])));
  return (host) => hosts.has(host);
}
