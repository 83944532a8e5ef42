import { readFileSync } from 'node:fs';
import { relative } from 'node:path';

/**
 * The frames a V8 CPU profile (`node --cpu-prof`) spent the most time in, by
 * self time (the function itself, not what it called), and the share of the
 * packages they belong to: what docs/performance.md quotes.
 *
 *   npx tsx bench/profile-top.ts <file.cpuprofile> [frames (default 25)]
 */
interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
}

interface Profile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

const [file, top = '25'] = process.argv.slice(2);
if (!file) {
  process.stderr.write('usage: npx tsx bench/profile-top.ts <file.cpuprofile> [frames]\n');
  process.exit(2);
}
const profile = JSON.parse(readFileSync(file, 'utf8')) as Profile;
const byId = new Map(profile.nodes.map((node) => [node.id, node]));
const selfMs = new Map<number, number>();
profile.samples.forEach((id, index) => selfMs.set(id, (selfMs.get(id) ?? 0) + (profile.timeDeltas[index] ?? 0) / 1000));

const frames = new Map<string, number>();
const packages = new Map<string, number>();
let total = 0;
for (const [id, ms] of selfMs) {
  const frame = byId.get(id)?.callFrame;
  if (!frame || frame.functionName === '(idle)') continue;
  total += ms;
  const where = frame.url ? `${shortUrl(frame.url)}:${frame.lineNumber + 1}` : '';
  const name = `${frame.functionName || '(anonymous)'} ${where}`.trim();
  frames.set(name, (frames.get(name) ?? 0) + ms);
  packages.set(packageOf(frame), (packages.get(packageOf(frame)) ?? 0) + ms);
}

const share = (ms: number) => `${((100 * ms) / total).toFixed(1).padStart(5)} %`;
process.stdout.write(`${file}: ${Math.round(total)} ms of CPU sampled (idle left out)\n\nby package (self time):\n`);
for (const [name, ms] of [...packages].sort((a, b) => b[1] - a[1]).slice(0, 15)) process.stdout.write(`  ${share(ms)}  ${name}\n`);
process.stdout.write(`\ntop ${top} frames (self time):\n`);
for (const [name, ms] of [...frames].sort((a, b) => b[1] - a[1]).slice(0, Number(top))) process.stdout.write(`  ${share(ms)}  ${name}\n`);

function shortUrl(url: string): string {
  const path = url.replace(/^file:\/\//, '');
  return path.startsWith('/') ? relative(process.cwd(), path) : path;
}

/**
 * node_modules/<package> (scoped too), a single file the kit bundled packages into (libs/kit/src/bundled-packages.ts),
 * the repository's own workspace, node's internals, or V8's own bookkeeping.
 */
function packageOf(frame: ProfileNode['callFrame']): string {
  if (!frame.url) return frame.functionName.startsWith('(') ? frame.functionName : '(native)';
  const module = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(frame.url);
  if (module?.[1]) return module[1];
  const bundle = /\/libs\/kit\/dist\/bundled\/([^/]+)\.c?js$/.exec(frame.url);
  if (bundle?.[1]) return `${bundle[1]} (bundled)`;
  if (frame.url.startsWith('node:')) return 'node (built-in modules)';
  const workspace = /\/(libs|services)\/([^/]+)\//.exec(frame.url);
  return workspace ? `${workspace[1]}/${workspace[2]}` : shortUrl(frame.url);
}
