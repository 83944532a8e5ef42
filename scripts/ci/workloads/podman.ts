/** The podman commands the runner uses: run, wait, inspect, logs, rm, and cgroup memory figures. */
import { spawn } from 'node:child_process';
import { readFile } from 'node:fs/promises';

export interface Result {
  code: number;
  stdout: string;
  stderr: string;
}

export function podman(args: string[]): Promise<Result> {
  return new Promise((resolve, reject) => {
    const child = spawn('podman', args, { stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString('utf8')));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code: code ?? 1, stdout, stderr }));
  });
}

export async function podmanOk(args: string[]): Promise<string> {
  const result = await podman(args);
  if (result.code !== 0) throw new Error(`podman ${args.slice(0, 2).join(' ')} failed (${result.code}): ${result.stderr.trim()}`);
  return result.stdout.trim();
}

/** Resolves with the container's exit code once it has stopped. */
export async function waitForExit(name: string): Promise<number> {
  const output = await podmanOk(['wait', name]);
  return Number(output.split('\n').pop());
}

export async function inspect(name: string, format: string): Promise<string> {
  return podmanOk(['inspect', '--format', format, name]);
}

export async function ipAddress(name: string, network: string): Promise<string> {
  const ip = await inspect(name, `{{(index .NetworkSettings.Networks "${network}").IPAddress}}`);
  if (!ip) throw new Error(`${name} has no address on ${network}`);
  return ip;
}

export async function logs(name: string, tail: number): Promise<string> {
  const result = await podman(['logs', '--tail', String(tail), name]);
  return `${result.stdout}${result.stderr}`.trimEnd();
}

export interface Memory {
  /** usage minus inactive file cache: the kubelet's working set (what kubectl top shows). */
  workingSet: number;
  peak: number;
  limit: number;
}

/** The container's memory cgroup figures (cgroup v1, or v2), while it runs. */
export async function memory(name: string): Promise<Memory | undefined> {
  try {
    const [state, path] = (await inspect(name, '{{.State.Status}} {{.State.CgroupPath}}')).split(' ');
    // A stopped container's cgroup is gone (podman then names its parent's).
    if (state !== 'running' || !path) return undefined;
    const read = async (file: string) => (await readFile(file, 'utf8')).trim();
    const v1 = `/sys/fs/cgroup/memory${path}`;
    try {
      const stat = await read(`${v1}/memory.stat`);
      const inactive = Number(/^total_inactive_file (\d+)$/m.exec(stat)?.[1] ?? 0);
      const usage = Number(await read(`${v1}/memory.usage_in_bytes`));
      return {
        workingSet: Math.max(0, usage - inactive),
        peak: Number(await read(`${v1}/memory.max_usage_in_bytes`)),
        limit: Number(await read(`${v1}/memory.limit_in_bytes`)),
      };
    } catch {
      const v2 = `/sys/fs/cgroup${path}`;
      const stat = await read(`${v2}/memory.stat`);
      const inactive = Number(/^inactive_file (\d+)$/m.exec(stat)?.[1] ?? 0);
      const limit = await read(`${v2}/memory.max`);
      return {
        workingSet: Math.max(0, Number(await read(`${v2}/memory.current`)) - inactive),
        peak: Number(await read(`${v2}/memory.peak`).catch(() => '0')),
        limit: limit === 'max' ? Number.POSITIVE_INFINITY : Number(limit),
      };
    }
  } catch {
    return undefined;
  }
}

export function mebibytes(value: number | undefined): string {
  if (value === undefined) return '-';
  if (!Number.isFinite(value) || value >= 2 ** 62) return 'none';
  return `${(value / 2 ** 20).toFixed(1)}Mi`;
}
