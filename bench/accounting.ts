import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';

/**
 * CPU time and memory as the kernel accounts them for each process
 * (/proc/<pid>/stat, /proc/<pid>/status), so a figure per unit of work does not
 * depend on how busy the machine is: wall-clock throughput on a shared two-core
 * machine does, the CPU a process spent on a request does not.
 */

/** Clock ticks per second, the unit of /proc/<pid>/stat's times. */
const TICKS_PER_SECOND = Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100;

interface ProcessTimes {
  /** utime + stime: the process's own CPU time, in ticks. */
  own: number;
  /** cutime + cstime: its reaped children's (a PostgreSQL backend that ended is in its postmaster's). */
  children: number;
  ppid: number;
  name: string;
}

function processTimes(pid: number): ProcessTimes | undefined {
  let stat: string;
  try {
    stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  } catch {
    return undefined; // it ended
  }
  // The name (field 2) is in parentheses and may hold spaces: the fields after it are counted from its end.
  const close = stat.lastIndexOf(')');
  const fields = stat.slice(close + 2).split(' ');
  return {
    name: stat.slice(stat.indexOf('(') + 1, close),
    ppid: Number(fields[1]),
    own: Number(fields[11]) + Number(fields[12]),
    children: Number(fields[13]) + Number(fields[14]),
  };
}

/** A set of processes whose CPU time is summed: one service, or an engine's processes found by name. */
export interface ProcessGroup {
  name: string;
  pids(): number[];
  /** Whether the group's reaped children count too (an engine forking a process per connection). */
  withChildren?: boolean;
}

export function serviceGroup(name: string, pid: () => number): ProcessGroup {
  return { name, pids: () => [pid()] };
}

/** Every process of this machine whose name (comm) is one of `names`: the database engine's, the broker's. */
export function namedGroup(name: string, names: string[]): ProcessGroup {
  return {
    name,
    withChildren: true,
    pids: () =>
      readdirSync('/proc')
        .filter((entry) => /^\d+$/.test(entry))
        .map(Number)
        .filter((pid) => names.includes(processTimes(pid)?.name ?? '')),
  };
}

/** The local engines (scripts/stack.sh): FerretDB on PostgreSQL, or mongod; RabbitMQ's Erlang VM. */
export function engineGroups(): ProcessGroup[] {
  const groups = [
    namedGroup('FerretDB', ['ferretdb']),
    namedGroup('PostgreSQL', ['postgres']),
    namedGroup('mongod', ['mongod']),
    namedGroup('RabbitMQ', ['beam.smp']),
  ];
  return groups.filter((group) => group.pids().length > 0);
}

/** CPU seconds of a group so far: its processes' own time, plus the reaped children of its top processes when it counts them. */
function cpuSeconds(group: ProcessGroup): number {
  const pids = group.pids();
  let ticks = 0;
  for (const pid of pids) {
    const times = processTimes(pid);
    if (!times) continue;
    ticks += times.own;
    // A child's time reaches its parent's cutime once reaped; only the group's top process adds it, so nothing counts twice.
    if (group.withChildren && !pids.includes(times.ppid)) ticks += times.children;
  }
  return ticks / TICKS_PER_SECOND;
}

export interface CostPerUnit {
  units: number;
  seconds: number;
  /** Milliseconds of CPU per unit, by group name. */
  msPerUnit: Map<string, number>;
}

/**
 * Runs `phase`, which returns how many units of work it did, and divides each
 * group's CPU time over it by that number. The groups' processes are found
 * before and after (an engine may start processes during the phase).
 */
export async function costPerUnit(groups: ProcessGroup[], phase: () => Promise<number>): Promise<CostPerUnit> {
  const before = groups.map(cpuSeconds);
  const started = performance.now();
  const units = await phase();
  const seconds = (performance.now() - started) / 1000;
  const after = groups.map(cpuSeconds);
  const msPerUnit = new Map(groups.map((group, index) => [group.name, (((after[index] ?? 0) - (before[index] ?? 0)) * 1000) / Math.max(1, units)]));
  return { units, seconds, msPerUnit };
}

/**
 * Waits, one second at a time and at most `limitSeconds`, until `groups` together spend under `msPerSecond` of CPU
 * in a second; returns how long it waited and what they spent in the last second. Work an earlier flow left behind
 * (the large zone import's rescreening keeps the engine busy for a minute or more) would share the machine's cores
 * with the next phase, and a process's CPU per unit depends on how fast its units come.
 */
export async function untilQuiet(
  groups: ProcessGroup[],
  msPerSecond: number,
  limitSeconds: number,
): Promise<{ seconds: number; msPerSecond: number }> {
  const started = performance.now();
  for (;;) {
    const second = await costPerUnit(groups, () => new Promise((resolve) => setTimeout(() => resolve(1), 1000)));
    const spent = [...second.msPerUnit.values()].reduce((sum, ms) => sum + ms, 0) / second.seconds;
    const seconds = (performance.now() - started) / 1000;
    // Below zero, a process left the groups within the second without its time reaching its parent yet: no reading.
    if ((spent >= 0 && spent < msPerSecond) || seconds >= limitSeconds) return { seconds, msPerSecond: spent };
  }
}

/** Resident memory of a process, MiB (VmRSS). */
export function rssMiB(pid: number): number {
  return statusMiB(pid, 'VmRSS');
}

/**
 * The part of the RSS that is file-backed (RssFile): the node binary's and the libraries' pages the process has
 * touched so far, clean, shared by every process of the same binary and given back under pressure. A path run
 * for the first time late in a run adds to it; a leak does not.
 */
export function fileBackedRssMiB(pid: number): number {
  return statusMiB(pid, 'RssFile');
}

/** The most resident memory the process has held since it started or since `resetPeakRss`, in MiB (VmHWM). */
export function peakRssMiB(pid: number): number {
  return statusMiB(pid, 'VmHWM');
}

/** One of the memory figures in /proc/<pid>/status (kB there), in MiB; NaN when the kernel does not give it. */
function statusMiB(pid: number, field: 'VmRSS' | 'VmHWM' | 'RssFile'): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  return Number(new RegExp(`^${field}:\\s+(\\d+)\\s+kB`, 'm').exec(status)?.[1] ?? Number.NaN) / 1024;
}

/** Starts the process's peak RSS over from its RSS now (proc(5), clear_refs "5"). */
export function resetPeakRss(pid: number): void {
  writeFileSync(`/proc/${pid}/clear_refs`, '5');
}
