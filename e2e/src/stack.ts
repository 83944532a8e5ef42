import { execFile } from 'node:child_process';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

const STACK = resolve(dirname(fileURLToPath(import.meta.url)), '../../scripts/stack.sh');
const run = promisify(execFile);

export type Dependency = 'broker' | 'database';

/** Whether the tests run on the local stack (scripts/stack.sh), which they can take down and bring back. */
export async function localStackRunning(): Promise<boolean> {
  try {
    await run('bash', [STACK, 'status']);
    return true;
  } catch {
    return false;
  }
}

/** A real outage of the broker (every connection dropped) or the database (process stopped). */
export async function pause(dependency: Dependency): Promise<void> {
  await run('bash', [STACK, 'pause', dependency], { timeout: 120_000 });
}

export async function resume(dependency: Dependency): Promise<void> {
  await run('bash', [STACK, 'resume', dependency], { timeout: 300_000 });
}
