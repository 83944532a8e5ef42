import { API_KEY_PATTERN, type ApiKeyRole, type Principal } from '@dfc/contracts';

/** The key id, or undefined when the text is not shaped like one of our keys. */
export function keyIdOf(key: string): string | undefined {
  return API_KEY_PATTERN.exec(key)?.[1];
}

/** Shown in listings so a person can tell keys apart without the secret. */
export function lastFourOf(key: string): string {
  return key.slice(-4);
}

/** What the gateway needs to know of a key to authorise a call. */
export interface KeyHolder {
  _id: string;
  role: ApiKeyRole;
  operator_uuid: string | null;
  authority: string | null;
}

/** The principal a key stands for; undefined when the record is incomplete for its role. */
export function principalOf(key: KeyHolder): Principal | undefined {
  switch (key.role) {
    case 'operator':
      return key.operator_uuid ? { sub: key.operator_uuid, role: 'operator', operator_uuid: key.operator_uuid, key_id: key._id } : undefined;
    case 'reviewer':
      return key.authority ? { sub: key._id, role: 'reviewer', authority: key.authority, key_id: key._id } : undefined;
    case 'admin':
      return { sub: key._id, role: 'admin', key_id: key._id };
  }
}

/** `last_used_at` is written at most this often per key (and replica), to keep verification a read. */
export const LAST_USED_RESOLUTION_MS = 60_000;
