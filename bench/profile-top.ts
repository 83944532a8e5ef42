import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { packageOf, shortUrl, type CallFrame } from './frames.js';

/**
 * The frames a V8 CPU profile (`node --cpu-prof`) spent the most time in, by
 * self time (the function itself, not what it called), and the share of the
 * packages they belong to: what docs/performance.md quotes.
 *
 *   npx tsx bench/profile-top.ts <file.cpuprofile> [frames (default 25)] [--busiest <s> | --from <s> --to <s>] [--seconds]
 *
 * A profile covers the process's whole life: start-up, the walkthrough and
 * every phase. `--busiest 20` keeps only the 20 s in which the process was
 * busiest, which in a one-flow run (`BENCH_COST_FLOWS=delivery`) is that
 * flow's phase; `--from 3 --to 23` keeps the samples between those seconds of
 * the profile (a baseline that starts under tsx is busiest while it compiles);
 * `--seconds` prints the CPU sampled in each second, to choose them.
 */
interface ProfileNode {
  id: number;
  callFrame: CallFrame;
}

interface Profile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

const { values, positionals } = parseArgs({ allowPositionals: true, options: { busiest: { type: 'string' }, from: { type: 'string' }, to: { type: 'string' }, seconds: { type: 'boolean' } } });
const [file, top = '25'] = positionals;
if (!file) {
  process.stderr.write('usage: npx tsx bench/profile-top.ts <file.cpuprofile> [frames] [--busiest <s> | --from <s> --to <s>] [--seconds]\n');
  process.exit(2);
}
const profile = JSON.parse(readFileSync(file, 'utf8')) as Profile;
const byId = new Map(profile.nodes.map((node) => [node.id, node]));
const isIdle = (id: number) => byId.get(id)?.callFrame.functionName === '(idle)';
/** When each sample was taken, in µs since the profile began. */
const sampledAtUs: number[] = [];
let elapsedUs = 0;
for (const deltaUs of profile.timeDeltas) sampledAtUs.push((elapsedUs += deltaUs));
if (values.seconds) printSeconds();
const counted = chosenSamples();
const selfMs = new Map<number, number>();
for (let index = counted.from; index < counted.to; index++) {
  const id = profile.samples[index] as number;
  selfMs.set(id, (selfMs.get(id) ?? 0) + (profile.timeDeltas[index] ?? 0) / 1000);
}

const frames = new Map<string, number>();
const packages = new Map<string, number>();
let total = 0;
for (const [id, ms] of selfMs) {
  const frame = byId.get(id)?.callFrame;
  if (!frame || isIdle(id)) continue;
  total += ms;
  const where = frame.url ? `${shortUrl(frame.url)}:${frame.lineNumber + 1}` : '';
  const name = `${frame.functionName || '(anonymous)'} ${where}`.trim();
  frames.set(name, (frames.get(name) ?? 0) + ms);
  packages.set(packageOf(frame), (packages.get(packageOf(frame)) ?? 0) + ms);
}

const share = (ms: number) => `${((100 * ms) / total).toFixed(1).padStart(5)} %`;
const window =
  values.busiest !== undefined ? ` in its busiest ${values.busiest} s` : values.from !== undefined || values.to !== undefined ? ` from ${values.from ?? 0} s to ${values.to ?? 'its end'}` : '';
process.stdout.write(`${file}: ${Math.round(total)} ms of CPU sampled${window} (idle left out)\n\nby package (self time):\n`);
for (const [name, ms] of [...packages].sort((a, b) => b[1] - a[1]).slice(0, 15)) process.stdout.write(`  ${share(ms)}  ${name}\n`);
process.stdout.write(`\ntop ${top} frames (self time):\n`);
for (const [name, ms] of [...frames].sort((a, b) => b[1] - a[1]).slice(0, Number(top))) process.stdout.write(`  ${share(ms)}  ${name}\n`);

/** The samples the options keep, as a range of indices. */
function chosenSamples(): { from: number; to: number } {
  if (values.busiest !== undefined) return busiestWindow(Number(values.busiest) * 1e6);
  const fromUs = Number(values.from ?? 0) * 1e6;
  const toUs = values.to === undefined ? Infinity : Number(values.to) * 1e6;
  const from = sampledAtUs.findIndex((atUs) => atUs >= fromUs);
  const to = sampledAtUs.findIndex((atUs) => atUs > toUs);
  return { from: from === -1 ? sampledAtUs.length : from, to: to === -1 ? sampledAtUs.length : to };
}

/** The CPU sampled (idle left out) in each second of the profile, in ms. */
function printSeconds(): void {
  const busyMs: number[] = [];
  profile.samples.forEach((id, index) => {
    const second = Math.floor((sampledAtUs[index] ?? 0) / 1e6);
    if (!isIdle(id)) busyMs[second] = (busyMs[second] ?? 0) + (profile.timeDeltas[index] ?? 0) / 1000;
  });
  process.stdout.write(`CPU sampled per second (ms): ${Array.from(busyMs, (ms, second) => `${second}:${Math.round(ms ?? 0)}`).join(' ')}\n\n`);
}

/** The samples of the window of `lengthUs` that holds the most time not idle (two pointers over the samples). */
function busiestWindow(lengthUs: number): { from: number; to: number } {
  let best = { from: 0, to: 0, busyUs: -1 };
  let from = 0;
  let spanUs = 0;
  let busyUs = 0;
  for (let to = 0; to < profile.samples.length; to++) {
    const deltaUs = profile.timeDeltas[to] ?? 0;
    spanUs += deltaUs;
    if (!isIdle(profile.samples[to] as number)) busyUs += deltaUs;
    while (spanUs > lengthUs && from < to) {
      const leavingUs = profile.timeDeltas[from] ?? 0;
      spanUs -= leavingUs;
      if (!isIdle(profile.samples[from] as number)) busyUs -= leavingUs;
      from++;
    }
    if (busyUs > best.busyUs) best = { from, to: to + 1, busyUs };
  }
  return best;
}
