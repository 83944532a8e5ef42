import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { startSystem } from '../e2e/src/system.js';
const system = await startSystem({ compiled: true, env: { LOG_LEVEL: 'warn' } });
await new Promise((r) => setTimeout(r, 3000));
const child = spawn(process.execPath, ['--import', 'tsx', 'scripts/walkthrough.ts'], { env: { ...process.env, GATEWAY_URL: system.gatewayUrl, ADMIN_API_KEY: system.adminKey, WALKTHROUGH_RECEIVER_PORT: '28999' }, stdio: 'ignore' });
console.log('walkthrough', await new Promise((r) => child.once('exit', r)));
for (const name of ['operator-service', 'flight-request-service', 'webhook-service', 'gateway'] as const) {
  const smaps = readFileSync(`/proc/${system.pid(name)}/smaps`, 'utf8').split('\n');
  const by = new Map<string, number>(); let cur = '';
  for (const line of smaps) {
    const m = /^[0-9a-f]+-[0-9a-f]+ \S+ \S+ \S+ \S+\s*(.*)$/.exec(line);
    if (m) { cur = m[1] || '[anon]'; if (cur.includes('/')) cur = cur.split('/').pop()!; continue; }
    const r = /^Rss:\s+(\d+) kB/.exec(line); if (r) by.set(cur, (by.get(cur) ?? 0) + Number(r[1]));
  }
  const total = [...by.values()].reduce((a, b) => a + b, 0);
  console.log(name, 'total', (total / 1024).toFixed(1), [...by].sort((a, b) => b[1] - a[1]).slice(0, 6).map(([k, v]) => `${k} ${(v / 1024).toFixed(1)}`).join(', '));
}
await system.stop();
