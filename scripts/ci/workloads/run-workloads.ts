/**
 * Starts rendered Kubernetes workloads as podman containers, exactly as their specs say, and runs a
 * command (the README walkthrough) against them while their liveness probes are polled.
 * scripts/ci/workloads.sh drives it; `podman kube play` (podman 4.3) cannot: it panics on Secret
 * volumes and wants its own encoding of secrets for secretKeyRef.
 *
 *   npx tsx scripts/ci/workloads/run-workloads.ts --manifests rendered.yaml --values DIR \
 *     --image-map dfc/service=localhost/dfc/service:ci --network dfc-workloads \
 *     --publish gateway/http=127.0.0.1:28080 [--state-dir DIR] -- COMMAND [ARGS...]
 *   npx tsx scripts/ci/workloads/run-workloads.ts --explain      every spec field and what the runner does with it
 *   ... --check (without the command): only the checks made before anything starts, no podman container
 *
 * Order, as a first install: the config (ConfigMaps, Secrets: --values DIR/secret/<name>/<key>,
 * DIR/configmap/<name>/<key>), then every Job to completion (exit 0 within activeDeadlineSeconds),
 * then every Deployment (one replica each): up when its startup and readiness probes pass. Then
 * COMMAND; liveness probes are polled until it ends, and every liveness and readiness probe must
 * still pass at the end. Any Job failure, container exit, failed startup or liveness probe,
 * readiness not reached within progressDeadlineSeconds, or a non-zero COMMAND fails the run (exit 1) with the containers' logs; the containers are removed either way.
 * Checked before anything starts: every field is known (spec.ts FIELDS), every Service selects a
 * pod and targets its ports, every Secret/ConfigMap key referenced exists, images map to local ones.
 * The data layer (the hosts the test Secrets name) must already be on --network.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { parseArgs } from 'node:util';
import { loadManifests, publishedPorts, takeInventory, wireServices } from './inventory.js';
import { PlanProblems, planWorkload, podmanRunArgs, probePort, type ContainerPlan } from './plan.js';
import { inspect, ipAddress, logs, mebibytes, memory, podman, podmanOk, waitForExit } from './podman.js';
import { pollUntilDecided, watchLiveness, type ProbeTarget } from './probes.js';
import { FIELDS, type Probe } from './spec.js';

const began = Date.now();
const log = (message: string) => console.log(`[workloads +${((Date.now() - began) / 1000).toFixed(1)}s] ${message}`);

/** What failed, and the containers whose logs explain it. */
class Failure extends Error {
  constructor(
    message: string,
    readonly containers: string[] = [],
    readonly tail = 200,
  ) {
    super(message);
  }
}

interface Status {
  plan: ContainerPlan;
  startedAt?: number;
  upSeconds?: number;
  exitCode?: number;
  peak: number;
  livenessChecks: number;
  livenessFailures: number;
}

interface Options {
  manifests: string;
  values?: string;
  imageMap: Map<string, string>;
  network: string;
  prefix: string;
  publish: string[];
  stateDir: string;
  command: string[];
  /** Only the checks made before anything starts; local images that do not exist yet are no problem. */
  check: boolean;
}

function parseOptions(): Options | undefined {
  const { values, positionals } = parseArgs({
    allowPositionals: true,
    options: {
      manifests: { type: 'string' },
      values: { type: 'string' },
      'image-map': { type: 'string', multiple: true, default: [] },
      network: { type: 'string', default: 'dfc-workloads' },
      prefix: { type: 'string' },
      publish: { type: 'string', multiple: true, default: [] },
      'state-dir': { type: 'string' },
      explain: { type: 'boolean', default: false },
      check: { type: 'boolean', default: false },
    },
  });
  if (values.explain) {
    for (const [path, fields] of Object.entries(FIELDS)) for (const [field, rule] of Object.entries(fields)) console.log(`${path}.${field}: ${rule}`);
    return undefined;
  }
  if (!values.manifests) throw new Error('--manifests FILE is required (see the header of scripts/ci/workloads/run-workloads.ts)');
  const imageMap = new Map(values['image-map'].map((entry) => entry.split('=', 2) as [string, string]));
  return {
    manifests: values.manifests,
    ...(values.values ? { values: values.values } : {}),
    imageMap,
    network: values.network,
    prefix: values.prefix ?? values.network,
    publish: values.publish,
    stateDir: values['state-dir'] ?? mkdtempSync(join(tmpdir(), 'dfc-workloads-')),
    command: positionals,
    check: values.check,
  };
}

/** Inventory, wiring and container plans; every problem found before anything starts. */
async function plan(options: Options): Promise<{ plans: ContainerPlan[][]; problems: string[] }> {
  const inventory = takeInventory(loadManifests(options.manifests), options.values);
  const aliases = wireServices(inventory);
  const publish = publishedPorts(inventory, options.publish);
  const imageUsers = new Map<string, string>();
  for (const image of new Set(options.imageMap.values())) {
    const user = await podman(['image', 'inspect', '--format', '{{.Config.User}}', image]);
    if (user.code === 0) imageUsers.set(image, user.stdout.trim());
    else if (!options.check) inventory.problems.push(`--image-map: the local image ${image} does not exist`);
  }
  const context = {
    values: inventory.values,
    imageMap: options.imageMap,
    imageUser: (image: string) => imageUsers.get(image),
    stateDir: options.stateDir,
    prefix: options.prefix,
    network: options.network,
    runLabel: options.prefix,
    aliases,
    publish,
  };
  const plans: ContainerPlan[][] = [];
  for (const workload of inventory.workloads) {
    try {
      plans.push(planWorkload(workload, context));
    } catch (error) {
      if (!(error instanceof PlanProblems)) throw error;
      inventory.problems.push(...error.problems);
    }
  }
  if (options.check) return { plans, problems: inventory.problems };
  for (const entry of inventory.notStarted) log(`not started: ${entry}`);
  for (const field of inventory.ignored) log(`not honoured: ${field}`);
  for (const override of inventory.overrides) log(`test value: ${override}`);
  for (const [workload, names] of aliases) log(`network aliases of ${workload}: ${names.join(', ')}`);
  return { plans, problems: inventory.problems };
}

class Run {
  readonly stop = new AbortController();
  /** Ends the liveness watchers (at the end of the command; the final check takes over). */
  private readonly livenessStop = new AbortController();
  readonly statuses: Status[] = [];
  failure?: Failure;
  private tearingDown = false;

  constructor(private readonly options: Options) {}

  fail(failure: Failure): void {
    if (this.failure || this.tearingDown) return;
    this.failure = failure;
    this.stop.abort(failure);
  }

  private async start(plan: ContainerPlan): Promise<Status> {
    const status: Status = { plan, peak: 0, livenessChecks: 0, livenessFailures: 0 };
    this.statuses.push(status);
    const result = await podman(podmanRunArgs(plan));
    if (result.code !== 0) throw new Failure(`${where(plan)} could not be created: ${result.stderr.trim()}`);
    status.startedAt = Date.now();
    return status;
  }

  /** Every Job at once, each to exit 0 within its activeDeadlineSeconds. */
  async runJobs(jobs: ContainerPlan[][]): Promise<void> {
    await Promise.all(jobs.map((containers) => this.runJob(containers)));
  }

  private async runJob(containers: ContainerPlan[]): Promise<void> {
    const workload = containers[0]!.workload;
    log(`Job/${workload.name}: starting`);
    const statuses = [];
    for (const plan of containers) statuses.push(await this.start(plan));
    const deadline = AbortSignal.any([this.stop.signal, AbortSignal.timeout(workload.deadlineSeconds * 1000)]);
    await Promise.all(
      statuses.map(async (status) => {
        const sampler = setInterval(() => void this.sample(status), 500);
        try {
          status.exitCode = await abortable(waitForExit(status.plan.name), deadline);
        } catch {
          throw (
            this.failure ??
            new Failure(`Job/${workload.name} did not complete within activeDeadlineSeconds ${workload.deadlineSeconds}`, [status.plan.name])
          );
        } finally {
          clearInterval(sampler);
        }
        status.upSeconds = (Date.now() - status.startedAt!) / 1000;
        if (status.exitCode !== 0)
          throw new Failure(`Job/${workload.name} container ${status.plan.container.name} exited with code ${status.exitCode}`, [status.plan.name]);
        log(`Job/${workload.name}: completed (exit 0) in ${status.upSeconds.toFixed(1)} s`);
      }),
    );
  }

  private async sample(status: Status): Promise<void> {
    const figures = await memory(status.plan.name);
    if (figures) status.peak = Math.max(status.peak, figures.peak);
  }

  /** Every Deployment at once (one replica); resolves when each is up (startup, then readiness). */
  async startDeployments(deployments: ContainerPlan[][]): Promise<void> {
    const statuses: Status[][] = [];
    for (const containers of deployments) {
      log(`Deployment/${containers[0]!.workload.name}: starting 1 replica`);
      const pod: Status[] = [];
      for (const plan of containers) {
        const status = await this.start(plan);
        this.watchExit(status);
        pod.push(status);
      }
      statuses.push(pod);
    }
    await Promise.all(
      statuses.flat().map((status) =>
        abortable(this.waitUp(status), this.stop.signal).catch((error: unknown) => {
          throw this.failure ?? error;
        }),
      ),
    );
  }

  /** A Deployment container that stops fails the run (Kubernetes would restart it; here that is a finding). */
  private watchExit(status: Status): void {
    waitForExit(status.plan.name).then(
      (code) => {
        status.exitCode = code;
        this.fail(new Failure(`${where(status.plan)} exited with code ${code} (Kubernetes would restart it: CrashLoopBackOff)`, [status.plan.name]));
      },
      () => undefined,
    );
  }

  private target(plan: ContainerPlan, probe: Probe): () => Promise<ProbeTarget> {
    const owner = `${this.options.prefix}-${plan.workload.name}`;
    const port = probePort(probe, plan.ports);
    let host: string | undefined;
    return async () => ({ host: (host ??= await ipAddress(owner, this.options.network)), port });
  }

  private async waitUp(status: Status): Promise<void> {
    const { plan } = status;
    const { startup, readiness, liveness } = plan.probes;
    if (startup) {
      const outcome = await pollUntilDecided(startup, this.target(plan, startup), { failureIsFinal: true, signal: this.stop.signal });
      if (!outcome.passed) throw new Failure(`${where(plan)}: startup probe failed: ${outcome.detail}`, [plan.name]);
      log(`${where(plan)}: startup probe passed (attempt ${outcome.attempts})`);
    }
    if (liveness) this.watchLiveness(status, liveness);
    if (readiness) await this.waitReady(plan, readiness);
    const minReady = plan.workload.minReadySeconds ?? 0;
    if (minReady > 0) await sleep(minReady * 1000, undefined, { signal: this.stop.signal });
    status.upSeconds = (Date.now() - status.startedAt!) / 1000;
    log(`${where(plan)}: up (startup${readiness ? ' and readiness' : ''} probes passed) ${status.upSeconds.toFixed(1)} s after its start`);
  }

  private async waitReady(plan: ContainerPlan, readiness: Probe): Promise<void> {
    const deadline = AbortSignal.any([this.stop.signal, AbortSignal.timeout(plan.workload.deadlineSeconds * 1000)]);
    let last = 'no attempt';
    try {
      await pollUntilDecided(readiness, this.target(plan, readiness), {
        failureIsFinal: false,
        signal: deadline,
        onAttempt: (failure) => (last = failure ?? last),
      });
    } catch {
      throw (
        this.failure ??
        new Failure(`${where(plan)}: not ready within progressDeadlineSeconds ${plan.workload.deadlineSeconds}; last readiness failure: ${last}`, [
          plan.name,
        ])
      );
    }
  }

  private watchLiveness(status: Status, liveness: Probe): void {
    const { plan } = status;
    void watchLiveness(liveness, this.target(plan, liveness), AbortSignal.any([this.stop.signal, this.livenessStop.signal]), (failure) => {
      status.livenessChecks++;
      if (failure === undefined) return;
      status.livenessFailures++;
      log(`${where(plan)}: liveness probe failed: ${failure}`);
    }).then((detail) => {
      if (detail) this.fail(new Failure(`${where(plan)}: liveness probe failed: ${detail} (Kubernetes would restart the container)`, [plan.name]));
    });
  }

  /** The command, while liveness probes keep being polled; a failure meanwhile stops it. */
  async runCommand(command: string[]): Promise<void> {
    log(`running: ${command.join(' ')}`);
    const child = spawn(command[0]!, command.slice(1), { stdio: 'inherit', detached: true });
    const stopChild = () => child.pid && process.kill(-child.pid, 'SIGTERM');
    this.stop.signal.addEventListener('abort', stopChild);
    const code = await new Promise<number>((resolve) => {
      child.on('error', () => resolve(127));
      child.on('close', (exitCode) => resolve(exitCode ?? 1));
    });
    this.stop.signal.removeEventListener('abort', stopChild);
    if (this.failure) throw this.failure;
    const deployments = this.statuses.filter((status) => status.plan.workload.kind === 'Deployment').map((status) => status.plan.name);
    if (code !== 0) throw new Failure(`the command exited with code ${code}`, deployments, 60);
    log('the command succeeded');
  }

  /**
   * At the end every Deployment container must still be live and ready: a probe whose failures had
   * not yet reached failureThreshold when the command ended (a command shorter than period x
   * threshold) is polled on until it passes once or fails failureThreshold times in a row.
   */
  async checkProbesAtTheEnd(): Promise<void> {
    this.livenessStop.abort();
    await Promise.all(
      this.statuses
        .filter((status) => status.plan.workload.kind === 'Deployment')
        .flatMap((status) => {
          const { plan } = status;
          return (['liveness', 'readiness'] as const).map(async (kind) => {
            const probe = plan.probes[kind];
            if (!probe) return;
            const onAttempt = (failure: string | undefined) => {
              if (kind === 'liveness') status.livenessChecks++;
              if (kind === 'liveness' && failure) status.livenessFailures++;
            };
            const outcome = await pollUntilDecided({ ...probe, initialDelaySeconds: 0, successThreshold: 1 }, this.target(plan, probe), {
              failureIsFinal: true,
              signal: this.stop.signal,
              onAttempt,
            });
            if (!outcome.passed) throw new Failure(`${where(plan)}: ${kind} probe fails at the end of the run: ${outcome.detail}`, [plan.name]);
          });
        }),
    );
    log('every liveness and readiness probe passes at the end');
  }

  async report(): Promise<void> {
    const rows = [['WORKLOAD', 'CONTAINER', 'STATE', 'UP/DONE IN', 'LIVENESS CHECKS', 'MEMORY', 'PEAK', 'LIMIT']];
    for (const status of this.statuses) {
      const { plan } = status;
      const state = await inspect(plan.name, '{{.State.Status}} {{.State.ExitCode}}').catch(() => 'gone');
      const figures = await memory(plan.name);
      const [running, exit] = state.split(' ');
      rows.push([
        `${plan.workload.kind}/${plan.workload.name}`,
        plan.container.name,
        running === 'running' ? 'running' : plan.workload.kind === 'Job' && exit === '0' ? 'completed (exit 0)' : `${running} (exit ${exit ?? '?'})`,
        status.upSeconds === undefined ? '-' : `${status.upSeconds.toFixed(1)} s`,
        plan.probes.liveness && status.livenessChecks > 0
          ? `${status.livenessChecks - status.livenessFailures}/${status.livenessChecks} passed`
          : '-',
        mebibytes(figures?.workingSet),
        mebibytes(Math.max(status.peak, figures?.peak ?? 0) || undefined),
        mebibytes(plan.memoryLimit),
      ]);
    }
    const widths = rows[0]!.map((_, column) => Math.max(...rows.map((row) => row[column]!.length)));
    for (const row of rows) console.log(`  ${row.map((cell, column) => cell.padEnd(widths[column]!)).join('  ')}`);
  }

  async showLogs(failure: Failure): Promise<void> {
    for (const name of failure.containers) {
      console.error(`----- ${name}: last ${failure.tail} log lines -----`);
      console.error((await logs(name, failure.tail)) || '(no output)');
    }
  }

  async teardown(): Promise<void> {
    this.tearingDown = true;
    if (!this.stop.signal.aborted) this.stop.abort(new Error('teardown'));
    await Promise.all(
      this.statuses.map((status) =>
        podman([
          'rm',
          '--force',
          '--depend',
          '--time',
          String(status.plan.workload.template.spec.terminationGracePeriodSeconds ?? 30),
          status.plan.name,
        ]),
      ),
    );
  }
}

function where(plan: ContainerPlan): string {
  return `${plan.workload.kind}/${plan.workload.name} container ${plan.container.name}`;
}

/** The promise, or the signal's reason once it is aborted. */
function abortable<T>(promise: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) return Promise.reject(signal.reason);
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort));
  });
}

async function main(): Promise<number> {
  const options = parseOptions();
  if (!options) return 0;
  const { plans, problems } = await plan(options);
  if (problems.length > 0) {
    for (const problem of problems) console.error(`[workloads] ERROR: ${problem}`);
    console.error(`[workloads] ${problems.length} problem(s) in the manifests or the test values; nothing was started`);
    return 1;
  }
  if (options.check) {
    log(`checked ${plans.length} workloads: every field known, every Service wired, every Secret and ConfigMap key there`);
    return 0;
  }
  await podmanOk(['network', 'exists', options.network]).catch(() => {
    throw new Error(`the podman network ${options.network} does not exist (the data layer must be on it)`);
  });
  const run = new Run(options);
  const interrupted = () => run.fail(new Failure('interrupted'));
  process.on('SIGINT', interrupted).on('SIGTERM', interrupted);
  try {
    await run.runJobs(plans.filter((containers) => containers[0]!.workload.kind === 'Job'));
    await run.startDeployments(plans.filter((containers) => containers[0]!.workload.kind === 'Deployment'));
    log('every workload is up');
    if (options.command.length > 0) await run.runCommand(options.command);
    await run.checkProbesAtTheEnd();
    await run.report();
    return 0;
  } catch (error) {
    const failure = run.failure ?? (error instanceof Failure ? error : new Failure((error as Error).stack ?? String(error)));
    console.error(`[workloads] FAILED: ${failure.message}`);
    await run.showLogs(failure);
    await run.report();
    return 1;
  } finally {
    await run.teardown();
    log('removed every container the run started');
  }
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    console.error(`[workloads] ERROR: ${(error as Error).message}`);
    process.exit(1);
  },
);
