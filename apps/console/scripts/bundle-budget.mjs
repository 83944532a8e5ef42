// The bundle budget (issue 19): at most 300 KB of gzipped JavaScript, the basemap
// chunk (Natural Earth data, src/map/basemap.ts) apart. Run after `vite build`; fails the build over budget.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';

const BUDGET_BYTES = 300 * 1024;
const assets = join(import.meta.dirname, '..', 'dist', 'assets');
const kb = (bytes) => `${(bytes / 1024).toFixed(1)} KB`;

let total = 0;
for (const name of readdirSync(assets)
  .filter((file) => file.endsWith('.js'))
  .sort()) {
  const gzipped = gzipSync(readFileSync(join(assets, name)), { level: 9 }).length;
  const basemap = name.startsWith('basemap');
  if (!basemap) total += gzipped;
  console.log(`[bundle] ${name.padEnd(40)} ${kb(gzipped).padStart(10)} gzipped${basemap ? '  (basemap, outside the budget)' : ''}`);
}
console.log(`[bundle] JavaScript without the basemap: ${kb(total)} gzipped, budget ${kb(BUDGET_BYTES)}`);
if (total > BUDGET_BYTES) {
  console.error('[bundle] ERROR: over budget');
  process.exit(1);
}
