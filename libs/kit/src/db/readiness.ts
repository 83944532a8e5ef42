import type { Connection, ConnectionStates } from 'mongoose';

/** mongoose's `ConnectionStates.connected`, named by its type alone so that this file loads no mongoose. */
const CONNECTED = 1 as ConnectionStates.connected;

/** Whether the connection is open. Apart from mongo.ts, so a service without a database never loads mongoose. */
export function mongoReady(connection: Connection): boolean {
  return connection.readyState === CONNECTED;
}
