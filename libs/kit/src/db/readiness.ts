import type { Connection } from 'mongoose';

/** Whether the connection is open. Apart from mongo.ts, so a service without a database never loads mongoose. */
export function mongoReady(connection: Connection): boolean {
  return connection.readyState === 1;
}
