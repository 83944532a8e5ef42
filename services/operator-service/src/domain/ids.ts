import { isUuid } from '@dfc/contracts';

const KEY_ID = /^[0-9a-f]{16}$/;

/** A path's operator uuid in stored form, or undefined when it cannot name an operator (→ 404). */
export function operatorUuidFrom(text: string): string | undefined {
  return isUuid(text) ? text.toLowerCase() : undefined;
}

/** A path's key id, or undefined when it cannot name a key (→ 404). */
export function keyIdFrom(text: string): string | undefined {
  return KEY_ID.test(text) ? text : undefined;
}
