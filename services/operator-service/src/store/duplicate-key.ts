/**
 * A unique index refused the write. MongoDB says so with code 11000 ("E11000
 * duplicate key"); FerretDB 1.x on SQLite does for inserts, but reports an
 * *update* that collides with a unique index as InternalError (code 1)
 * "UNIQUE constraint failed", so both are recognised.
 */
export function isDuplicateKeyError(error: unknown): boolean {
  if (typeof error !== 'object' || error === null) return false;
  const { code, message } = error as { code?: unknown; message?: unknown };
  return code === 11000 || (code === 1 && typeof message === 'string' && message.includes('UNIQUE constraint failed'));
}
