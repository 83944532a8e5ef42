import { readdirSync, readFileSync, readlinkSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { WebSocket } from 'undici';
import { packageOf, shortUrl, type CallFrame } from './frames.js';

/**
 * What a running service allocates, and where: V8's sampling allocation
 * profile, taken through the service's inspector for a while, with the objects
 * the collector has already freed counted too (a CPU profile says the
 * collector is busy; this says who fills the young generation, and who gets
 * promoted out of it).
 *
 *   BENCH_INSPECT=1 BENCH_COST_FLOWS=read npm run bench -- cost   # the services and baselines with an inspector each
 *   npx tsx bench/allocation-sites.ts <pid> [seconds (default 10)] [--units <n>] [--promoted] [--top <n>]
 *
 * `--units` divides by the units of work done in those seconds (the phase's
 * rate times the seconds) instead of by the seconds. `--promoted` leaves out
 * the objects a scavenge freed: what is left outlived the young generation
 * (collected by a full collection, or still alive), the work a full
 * collection has to do. Sites are the allocating function and its caller.
 */
const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: { units: { type: 'string' }, promoted: { type: 'boolean' }, top: { type: 'string', default: '30' } },
});
const [pid, seconds = '10'] = positionals;
if (!pid) {
  process.stderr.write('usage: npx tsx bench/allocation-sites.ts <pid> [seconds] [--units <n>] [--promoted] [--top <n>]\n');
  process.exit(2);
}

interface AllocationNode {
  callFrame: CallFrame;
  selfSize: number;
  children: AllocationNode[];
}

const profile = await sampleAllocations(await inspectorUrl(Number(pid)), Number(seconds) * 1000, !values.promoted);
const bySite = new Map<string, number>();
const byPackage = new Map<string, number>();
let totalBytes = 0;
walk(profile, undefined);
const divisor = values.units === undefined ? Number(seconds) : Number(values.units);
const unit = values.units === undefined ? 'second' : 'unit';
const perUnit = (bytes: number) => `${(bytes / divisor / 1024).toFixed(2).padStart(8)} KiB`;
const what = values.promoted ? 'outlived the young generation' : 'allocated';
process.stdout.write(`process ${pid}, ${seconds} s: ${(totalBytes / 1024 / 1024).toFixed(1)} MiB ${what}, ${perUnit(totalBytes).trim()} per ${unit}\n\nby package:\n`);
for (const [name, bytes] of top(byPackage, 15)) process.stdout.write(`  ${perUnit(bytes)}  ${name}\n`);
process.stdout.write(`\nby site (per ${unit}):\n`);
for (const [name, bytes] of top(bySite, Number(values.top))) process.stdout.write(`  ${perUnit(bytes)}  ${name}\n`);

function walk(node: AllocationNode, caller: CallFrame | undefined): void {
  if (node.selfSize > 0) {
    totalBytes += node.selfSize;
    const site = caller ? `${frameName(node.callFrame)} < ${frameName(caller)}` : frameName(node.callFrame);
    bySite.set(site, (bySite.get(site) ?? 0) + node.selfSize);
    const name = packageOf(node.callFrame);
    byPackage.set(name, (byPackage.get(name) ?? 0) + node.selfSize);
  }
  for (const child of node.children) walk(child, node.callFrame);
}

function frameName(frame: CallFrame): string {
  const where = frame.url ? ` ${shortUrl(frame.url)}:${frame.lineNumber + 1}` : '';
  return `${frame.functionName || '(anonymous)'}${where}`;
}

function top(totals: Map<string, number>, count: number): Array<[string, number]> {
  return [...totals].sort((a, b) => b[1] - a[1]).slice(0, count);
}

/** The inspector's WebSocket of a process started with `--inspect`: the one of its listening ports that answers /json/list. */
async function inspectorUrl(processId: number): Promise<string> {
  for (const port of listeningPorts(processId)) {
    const targets = await fetch(`http://127.0.0.1:${port}/json/list`)
      .then((response) => response.json() as Promise<Array<{ webSocketDebuggerUrl?: string }>>)
      .catch(() => []);
    const url = targets[0]?.webSocketDebuggerUrl;
    if (url) return url;
  }
  throw new Error(`process ${processId} has no inspector: start it with --inspect=127.0.0.1:0 (BENCH_INSPECT=1)`);
}

/** The TCP ports a process listens on: its sockets' inodes, looked up in the kernel's table of listening sockets. */
function listeningPorts(processId: number): number[] {
  const inodes = new Set<string>();
  for (const fd of readdirSync(`/proc/${processId}/fd`)) {
    const inode = /^socket:\[(\d+)\]$/.exec(linkTarget(`/proc/${processId}/fd/${fd}`))?.[1];
    if (inode) inodes.add(inode);
  }
  const LISTEN = '0A';
  return readFileSync(`/proc/${processId}/net/tcp`, 'utf8')
    .split('\n')
    .slice(1)
    .map((line) => line.trim().split(/\s+/))
    .filter((fields) => fields[3] === LISTEN && inodes.has(fields[9] ?? ''))
    .map((fields) => parseInt((fields[1] ?? '').split(':')[1] ?? '', 16));
}

/** Where a descriptor points; empty when it closed while the directory was read. */
function linkTarget(path: string): string {
  try {
    return readlinkSync(path);
  } catch {
    return '';
  }
}

/** HeapProfiler.startSampling for `durationMs`, over the inspector protocol; the profile's root. */
async function sampleAllocations(url: string, durationMs: number, withScavenged: boolean): Promise<AllocationNode> {
  const socket = new WebSocket(url);
  await new Promise((resolve, reject) => {
    socket.addEventListener('open', resolve);
    socket.addEventListener('error', reject);
  });
  const answers = new Map<number, (result: unknown) => void>();
  socket.addEventListener('message', (event) => {
    const message = JSON.parse(String(event.data)) as { id?: number; result?: unknown };
    if (message.id !== undefined) answers.get(message.id)?.(message.result);
  });
  let lastId = 0;
  const call = (method: string, params: object = {}) =>
    new Promise<unknown>((resolve) => {
      const id = ++lastId;
      answers.set(id, resolve);
      socket.send(JSON.stringify({ id, method, params }));
    });
  await call('HeapProfiler.enable');
  // One sample per KiB on average: fine enough for sites of a few hundred bytes per unit.
  await call('HeapProfiler.startSampling', { samplingInterval: 1024, includeObjectsCollectedByMajorGC: true, includeObjectsCollectedByMinorGC: withScavenged });
  await new Promise((resolve) => setTimeout(resolve, durationMs));
  const { profile } = (await call('HeapProfiler.stopSampling')) as { profile: { head: AllocationNode } };
  socket.close();
  return profile.head;
}
