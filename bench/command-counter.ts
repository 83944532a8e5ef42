import { commandNameAt, sectionsOf, startWireRelay } from './wire-relay.js';

/**
 * Counts the database commands a service process sends, whatever engine
 * answers: a relay between the service and the database (bench/wire-relay.ts)
 * that reads the command name of each OP_MSG the driver sends and passes it
 * on. The driver's own traffic (hello heartbeats, sessions, authentication)
 * is left out.
 */
const DRIVER_COMMANDS = new Set(['hello', 'ismaster', 'isMaster', 'ping', 'endSessions', 'saslStart', 'saslContinue', 'buildInfo', 'buildinfo']);

export interface CommandCounter {
  /** MONGO_URL for the service: the same database, through the relay. */
  url: string;
  /** Commands counted so far, by name. */
  counts(): Map<string, number>;
  close(): Promise<void>;
}

export async function startCommandCounter(mongoUrl: string): Promise<CommandCounter> {
  const counted = new Map<string, number>();
  const relay = await startWireRelay(mongoUrl, (message) => {
    const sections = sectionsOf(message);
    const name = sections === undefined ? undefined : commandNameAt(message, sections.body);
    if (name !== undefined && !DRIVER_COMMANDS.has(name)) counted.set(name, (counted.get(name) ?? 0) + 1);
    return undefined;
  });
  return { url: relay.url, counts: () => new Map(counted), close: () => relay.close() };
}

/** Commands in `after` beyond those in `before`, by name, and in all. */
export function commandsBetween(before: Map<string, number>, after: Map<string, number>): { total: number; byName: Map<string, number> } {
  const byName = new Map<string, number>();
  let total = 0;
  for (const [name, count] of after) {
    const added = count - (before.get(name) ?? 0);
    if (added <= 0) continue;
    byName.set(name, added);
    total += added;
  }
  return { total, byName };
}
