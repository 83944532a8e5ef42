import { WEBHOOK_URL_MAX_LENGTH } from '@dfc/contracts';
import { classifyAddress } from './target-address.js';

export interface UrlPolicy {
  allowHttp: boolean;
  /** Development only: loopback targets (127.0.0.0/8, ::1) are let through; nothing else non-public ever is. */
  allowLoopbackTargets: boolean;
}

/** Whether the development flag lets this address through: loopback, and nothing else. */
export function isLoopbackAddress(address: string): boolean {
  return classifyAddress(address) === 'loopback';
}

/** An IP address no webhook may reach without the development flag; false for host names, which are judged once resolved. */
export function isForbiddenAddress(address: string): boolean {
  const target = classifyAddress(address);
  return target !== undefined && target !== 'public';
}

/** Whether an attempt may connect to a resolved (or literal) address: the same rule as a URL's literal address at registration. */
export function mayConnectTo(address: string, policy: Pick<UrlPolicy, 'allowLoopbackTargets'>): boolean {
  const target = classifyAddress(address);
  return target === 'public' || (target === 'loopback' && policy.allowLoopbackTargets);
}

/** Spaces of any kind, C0 controls and DEL: none belongs in a URL as written. */
// eslint-disable-next-line no-control-regex -- finding control characters is this expression's purpose
const UNSTORABLE_URL_CHARACTER = /[\s\u0000-\u001f\u007f]/;

/** Field messages for `url` (empty when acceptable). */
export function checkEndpointUrl(text: string, policy: UrlPolicy): string[] {
  if (text.length > WEBHOOK_URL_MAX_LENGTH) return [`The url field must not be greater than ${WEBHOOK_URL_MAX_LENGTH} characters.`];
  // A URL parser drops surrounding white space, tabs and line breaks without a word: refused, so the
  // stored text is exactly the address every attempt calls.
  if (UNSTORABLE_URL_CHARACTER.test(text)) {
    return ['The url field must not contain white space, line breaks or control characters (percent-encode them).'];
  }
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return ['The url field must be a valid URL.'];
  }
  const errors: string[] = [];
  if (url.protocol !== 'https:' && !(policy.allowHttp && url.protocol === 'http:')) {
    errors.push(policy.allowHttp ? 'The url field must use http or https.' : 'The url field must use https.');
  }
  if (url.username || url.password) errors.push('The url field must not contain credentials.');
  if (url.hash) errors.push('The url field must not contain a fragment.');
  if (url.port === '0') errors.push('The url field must not name port 0.');
  const host = url.hostname.replace(/^\[|\]$/g, '');
  if (classifyAddress(host) !== undefined && !mayConnectTo(host, policy)) {
    errors.push('The url field must not point to a private, loopback or link-local address.');
  }
  return errors;
}
