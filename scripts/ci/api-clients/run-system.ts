/**
 * Starts the whole system for the client-generator checks (services as child
 * processes behind the gateway, on the local stack, with a database and an
 * exchange of their own), writes where it listens to the file named by the
 * first argument, and keeps it up until SIGTERM, then removes everything it
 * made (processes, databases, broker topology).
 */
import { writeFileSync } from 'node:fs';
import { startSystem } from '../../../e2e/src/system.js';

const [infoFile] = process.argv.slice(2);
if (!infoFile) throw new Error('usage: run-system.ts <info-file>');

const system = await startSystem({
  env: {
    LOG_LEVEL: 'warn',
    // The fuzzer calls public routes thousands of times from one address.
    RATE_LIMIT_PUBLIC_PER_IP_PER_MINUTE: '1000000',
    RATE_LIMIT_PER_KEY_PER_MINUTE: '1000000',
    RATE_LIMIT_FAILED_AUTH_PER_IP_PER_MINUTE: '1000000',
  },
});
writeFileSync(infoFile, JSON.stringify({ gatewayUrl: system.gatewayUrl, adminKey: system.adminKey }));

let stopping = false;
const stop = async () => {
  if (stopping) return;
  stopping = true;
  await system.stop();
  process.exit(0);
};
process.on('SIGTERM', () => void stop());
process.on('SIGINT', () => void stop());
setInterval(() => undefined, 60_000);
