import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import mongoose from 'mongoose';
import { queueName } from '@dfc/kit/broker';
import { generateTokenKeys, removeBrokerTopology, testDependencies, uniqueName, waitFor } from '@dfc/kit/testing';
import { FlightRequestServiceConfig } from '../../services/flight-request-service/src/config.js';
import { Queues as FlightRequestQueues } from '../../services/flight-request-service/src/messaging.js';
import { GatewayConfigSchema } from '../../services/gateway/src/config.js';
import { ConfigSchema as OperatorServiceConfig } from '../../services/operator-service/src/config.js';
import { WebhookServiceConfig } from '../../services/webhook-service/src/config.js';
import { Queues as WebhookQueues } from '../../services/webhook-service/src/messaging.js';
import { startBalancer, type Balancer } from './balancer.js';
import { freePort, portTakenIn, PortTakenError, PORT_ATTEMPTS, retryOnTakenPort } from './ports.js';

/**
 * Starts the real system for end-to-end tests and benchmarks: each service is
 * its own child process (as in production), on a free port, with databases
 * and an exchange no other run uses. Tests talk to the gateway like a client.
 */
export type ServiceName = 'gateway' | 'operator-service' | 'flight-request-service' | 'webhook-service';

const ALL_SERVICES: ServiceName[] = ['operator-service', 'flight-request-service', 'webhook-service', 'gateway'];
const REPO_ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const READY_TIMEOUT_MS = 60_000;
/**
 * The services' durable queues, removed with the run: each is a quorum queue, a process of its own in the
 * broker, so a run that left them made every later run's broker a little larger and busier. A replica's
 * zone broadcast queue is exclusive and goes with its connection; webhook-service's delay queues expire
 * by themselves.
 */
export const DURABLE_QUEUES = [
  FlightRequestQueues.operators,
  FlightRequestQueues.reviewQueue,
  FlightRequestQueues.zoneRescreening,
  FlightRequestQueues.reexamination,
  WebhookQueues.events,
  WebhookQueues.attempts,
];
const LOG_TAIL_LINES = 200;
/** The variables each service reads: its config schema's (any of them also as `<NAME>_FILE`). */
const READS: Record<ServiceName, ReadonlySet<string>> = {
  gateway: new Set(Object.keys(GatewayConfigSchema.properties)),
  'operator-service': new Set(Object.keys(OperatorServiceConfig.properties)),
  'flight-request-service': new Set(Object.keys(FlightRequestServiceConfig.properties)),
  'webhook-service': new Set(Object.keys(WebhookServiceConfig.properties)),
};
/** What node reads (NODE_OPTIONS: a profiler, a heap limit) and the kit's query log for the index-coverage test. */
const EVERY_PROCESS_READS = new Set(['PATH', 'NODE_OPTIONS', 'DB_COMMAND_LOG']);

function reads(name: ServiceName, variable: string): boolean {
  return EVERY_PROCESS_READS.has(variable) || READS[name].has(variable.replace(/_FILE$/, ''));
}

/**
 * Of `env`, what `name` reads. A variable that `from` (the services it was given for) do not read at all is a
 * mistake of the caller's, refused rather than set where no code would look at it.
 */
function envOf(name: ServiceName, env: Record<string, string>, from: readonly ServiceName[]): Record<string, string> {
  const unread = Object.keys(env).filter((variable) => !from.some((service) => reads(service, variable)));
  if (unread.length > 0) throw new Error(`no process of ${from.join(', ')} reads ${unread.join(', ')}`);
  return Object.fromEntries(Object.entries(env).filter(([variable]) => reads(name, variable)));
}

export interface SystemOptions {
  services?: ServiceName[];
  /** Extra environment, each variable for the services that read it (one that none reads is refused). */
  env?: Record<string, string>;
  /** Extra environment for one service (a variable it does not read is refused). */
  serviceEnv?: Partial<Record<ServiceName, Record<string, string>>>;
  /**
   * Run the compiled services (`npm run build` first) as the image does, `node --conditions=compiled`
   * on dist/ (the benchmarks: the code path and memory of production), rather than the sources
   * under tsx (the tests: no build step between an edit and its test run).
   */
  compiled?: boolean;
  /**
   * Processes of one service (default 1): more run behind a round-robin balancer on the service's
   * port, each with its own port, sharing the service's database and queues as replicas do.
   */
  replicas?: Partial<Record<ServiceName, number>>;
  /** Extra node options for one service (e.g. `--cpu-prof`), after the image's `--conditions=compiled`. */
  nodeArgs?: Partial<Record<ServiceName, string[]>>;
}

export interface System {
  gatewayUrl: string;
  adminKey: string;
  exchange: string;
  amqpUrl: string;
  mongoUrl: string;
  privateKeyPem: string;
  publicKeyPem: string;
  url(service: ServiceName): string;
  /** Each process of a service on its own port (one URL unless `replicas` asked for more), bypassing the balancer. */
  replicaUrls(service: ServiceName): string[];
  /** Where the service's /metrics answer: the gateway's internal listener (METRICS_PORT), a service's own port. */
  metricsUrl(service: ServiceName): string;
  database(service: ServiceName): string;
  /** Stops one service abruptly (SIGKILL by default), as a crash would. */
  kill(service: ServiceName, signal?: NodeJS.Signals): Promise<void>;
  /** (Re)starts one service with its ports and databases, optionally with other env. */
  start(service: ServiceName, env?: Record<string, string>): Promise<void>;
  /** The last lines the service wrote, for failure messages. */
  logs(service: ServiceName): string;
  /** The process id of the running service (its CPU time and memory are read from /proc). */
  pid(service: ServiceName): number;
  /** The process id of each of the service's running processes (one unless `replicas` asked for more). */
  pids(service: ServiceName): number[];
  /** Stops every service and drops the run's databases. */
  stop(): Promise<void>;
}

interface RunningService {
  child: ChildProcess;
  output: string[];
  exited: Promise<void>;
}

export async function startSystem(options: SystemOptions = {}): Promise<System> {
  const services = options.services ?? ALL_SERVICES;
  const { mongoUrl, amqpUrl } = await testDependencies();
  const keys = generateTokenKeys();
  const exchange = uniqueName('e2e_events');
  const adminKey = `dfc_${randomBytes(8).toString('hex')}_${randomBytes(32).toString('base64url')}`;
  const ports = Object.fromEntries(await Promise.all(ALL_SERVICES.map(async (name) => [name, await freePort()] as const))) as Record<
    ServiceName,
    number
  >;
  const databases = Object.fromEntries(
    ALL_SERVICES.map((name) => [name, uniqueName(`e2e_${name.replace(/-service$/, '').replace(/-/g, '_')}`)]),
  ) as Record<ServiceName, string>;
  const url = (name: ServiceName) => `http://127.0.0.1:${ports[name]}`;
  let gatewayMetricsPort = await freePort();
  const metricsUrl = (name: ServiceName) => (name === 'gateway' ? `http://127.0.0.1:${gatewayMetricsPort}/metrics` : `${url(name)}/metrics`);

  // What each process is given, as scripts/start.sh gives it: every service the broker, each its own
  // database, secrets and settings alone.
  const everyService = { LOG_LEVEL: process.env['E2E_LOG_LEVEL'] ?? 'warn', HOST: '127.0.0.1', AMQP_URL: amqpUrl, AMQP_EXCHANGE: exchange };
  const authorisationSigningKey = generateTokenKeys().privateKeyPem;
  const webhookSecretKey = randomBytes(32).toString('base64');
  // Read as each process starts: a port moved because it was taken by then (retryOnTakenPort) is the one named.
  const ownEnv = (): Record<ServiceName, Record<string, string>> => ({
    gateway: {
      INTERNAL_TOKEN_PRIVATE_KEY: keys.privateKeyPem,
      RATE_LIMIT_MONGO_URL: mongoUrl,
      RATE_LIMIT_MONGO_DB: databases.gateway,
      OPERATOR_SERVICE_URL: url('operator-service'),
      FLIGHT_REQUEST_SERVICE_URL: url('flight-request-service'),
      WEBHOOK_SERVICE_URL: url('webhook-service'),
    },
    'operator-service': { MONGO_URL: mongoUrl, INTERNAL_TOKEN_PUBLIC_KEY: keys.publicKeyPem, ADMIN_API_KEY: adminKey },
    'flight-request-service': {
      MONGO_URL: mongoUrl,
      INTERNAL_TOKEN_PUBLIC_KEY: keys.publicKeyPem,
      AUTHORISATION_SIGNING_KEY: authorisationSigningKey,
      OPERATOR_SERVICE_URL: url('operator-service'),
    },
    'webhook-service': {
      MONGO_URL: mongoUrl,
      INTERNAL_TOKEN_PUBLIC_KEY: keys.publicKeyPem,
      WEBHOOK_SECRET_KEY: webhookSecretKey,
      ALLOW_LOOPBACK_WEBHOOK_TARGETS: 'true',
      ALLOW_HTTP_WEBHOOKS: 'true',
    },
  });

  const running = new Map<ServiceName, RunningService[]>();
  const logs = new Map<ServiceName, string[]>();
  const balancers: Balancer[] = [];
  const replicaPorts = new Map<ServiceName, number[]>();
  for (const [name, count = 1] of Object.entries(options.replicas ?? {}) as Array<[ServiceName, number]>) {
    if (count > 1) replicaPorts.set(name, await Promise.all(Array.from({ length: count }, () => freePort())));
  }
  for (const [name, targets] of replicaPorts) {
    balancers.push(
      await retryOnTakenPort(
        () =>
          startBalancer(ports[name], targets).catch((error: unknown) => {
            throw (error as { code?: string }).code === 'EADDRINUSE' ? new PortTakenError(ports[name], String(error)) : error;
          }),
        async () => {
          ports[name] = await freePort();
        },
      ),
    );
  }
  // Until the system is handed out, nothing outside it knows its ports: a start may move one that was taken.
  let handedOut = false;

  const start = async (name: ServiceName, env: Record<string, string> = {}) => {
    const targets = replicaPorts.get(name) ?? [ports[name]];
    await Promise.all(targets.map((port) => startProcess(name, port, env)));
  };

  const startProcess = async (name: ServiceName, first: number, env: Record<string, string>) => {
    let port = first;
    let ownMetricsPort: number | undefined;
    await retryOnTakenPort(
      async () => {
        // The first gateway's metrics listener is the one `metricsUrl` names; its replicas get ports of their own.
        const metricsPort =
          name !== 'gateway'
            ? undefined
            : port === (replicaPorts.get(name)?.[0] ?? ports[name])
              ? gatewayMetricsPort
              : (ownMetricsPort ??= await freePort());
        await spawnProcess(name, port, metricsPort, env);
      },
      async (taken) => {
        const fresh = await freePort();
        if (taken === gatewayMetricsPort && name === 'gateway') gatewayMetricsPort = fresh;
        else if (taken === ownMetricsPort) ownMetricsPort = fresh;
        else if (taken === port) {
          const replicas = replicaPorts.get(name);
          // A replica sits behind its balancer, which takes its targets from this list as each connection comes.
          if (replicas) replicas[replicas.indexOf(port)] = fresh;
          else ports[name] = fresh;
          port = fresh;
        }
      },
      handedOut ? 1 : PORT_ATTEMPTS,
    );
  };

  const spawnProcess = async (name: ServiceName, port: number, metricsPort: number | undefined, env: Record<string, string>) => {
    const output = logs.get(name) ?? [];
    logs.set(name, output);
    // What this process writes until it is ready, where a port taken since it was found free shows.
    let startLines: string[] | undefined = [];
    const child = spawn(process.execPath, entryPoint(name, 'main', options.compiled === true, options.nodeArgs?.[name]), {
      cwd: REPO_ROOT,
      env: {
        PATH: process.env['PATH'] ?? '',
        // The index-coverage test's query log (scripts/test.sh), when the run records one.
        ...(process.env['DB_COMMAND_LOG'] ? { DB_COMMAND_LOG: process.env['DB_COMMAND_LOG'] } : {}),
        ...everyService,
        ...ownEnv()[name],
        // A gateway replica answers for the balancer's address in front of it as well as for its own.
        ...(name === 'gateway' && replicaPorts.has(name)
          ? { ALLOWED_HOSTS: [ports[name], port].flatMap((p) => [`127.0.0.1:${p}`, `localhost:${p}`]).join(',') }
          : {}),
        ...envOf(name, options.env ?? {}, ALL_SERVICES),
        ...envOf(name, options.serviceEnv?.[name] ?? {}, [name]),
        ...envOf(name, env, [name]),
        PORT: String(port),
        ...(name === 'gateway' ? { METRICS_PORT: String(metricsPort) } : { MONGO_DB: databases[name] }),
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const collect = (chunk: Buffer) => {
      const lines = chunk.toString('utf8').split('\n').filter(Boolean);
      output.push(...lines);
      startLines?.push(...lines);
      if (output.length > LOG_TAIL_LINES) output.splice(0, output.length - LOG_TAIL_LINES);
    };
    child.stdout?.on('data', collect);
    child.stderr?.on('data', collect);
    const exited = new Promise<void>((done) => child.once('exit', () => done()));
    const closed = new Promise<void>((done) => child.once('close', () => done()));
    running.set(name, [...(running.get(name) ?? []), { child, output, exited }]);
    try {
      await waitFor(() => (child.exitCode === null ? ready(`http://127.0.0.1:${port}`) : Promise.reject(new Error('exited'))), READY_TIMEOUT_MS, 100);
      startLines = undefined;
    } catch {
      child.kill('SIGKILL');
      // Closed, not only exited: its last words (the port it could not bind) are read to the end.
      await closed;
      running.set(
        name,
        (running.get(name) ?? []).filter((entry) => entry.child !== child),
      );
      const detail = `${name} did not become ready:\n${output.slice(-40).join('\n')}`;
      const taken = portTakenIn(startLines ?? []);
      throw taken === undefined ? new Error(detail) : new PortTakenError(taken, detail);
    }
  };

  const kill = async (name: ServiceName, signal: NodeJS.Signals = 'SIGKILL') => {
    const processes = running.get(name) ?? [];
    running.delete(name);
    for (const { child } of processes) if (child.exitCode === null) child.kill(signal);
    await Promise.all(processes.map(({ exited }) => exited));
  };

  const stop = async () => {
    await Promise.all([...running.keys()].map((name) => kill(name, 'SIGTERM')));
    await Promise.all(balancers.splice(0).map((balancer) => balancer.close()));
  };
  processesToReap.add(stop);

  try {
    await migrateIndexes(mongoUrl, databases, options.compiled === true);
    const backends = services.filter((name) => name !== 'gateway');
    const operatorServicePort = ports['operator-service'];
    await Promise.all(backends.map((name) => start(name)));
    // flight-request-service was given operator-service's address as it started, beside it.
    if (ports['operator-service'] !== operatorServicePort && backends.includes('flight-request-service')) {
      await kill('flight-request-service', 'SIGTERM');
      await start('flight-request-service');
    }
    if (services.includes('gateway')) await start('gateway');
  } catch (error) {
    await stop();
    throw error;
  }
  handedOut = true;

  return {
    gatewayUrl: url('gateway'),
    adminKey,
    exchange,
    amqpUrl,
    mongoUrl,
    privateKeyPem: keys.privateKeyPem,
    publicKeyPem: keys.publicKeyPem,
    url,
    replicaUrls: (name) => (replicaPorts.get(name) ?? [ports[name]]).map((port) => `http://127.0.0.1:${port}`),
    metricsUrl,
    database: (name) => databases[name],
    kill,
    start,
    logs: (name) => (logs.get(name) ?? []).join('\n'),
    pid: (name) => {
      const pid = running.get(name)?.[0]?.child.pid;
      if (pid === undefined) throw new Error(`${name} is not running`);
      return pid;
    },
    pids: (name) => (running.get(name) ?? []).flatMap(({ child }) => (child.pid === undefined ? [] : [child.pid])),
    stop: async () => {
      processesToReap.delete(stop);
      await stop();
      await dropDatabases(mongoUrl, Object.values(databases));
      await removeBrokerTopology(
        amqpUrl,
        exchange,
        DURABLE_QUEUES.map((purpose) => queueName(exchange, purpose)),
      );
    },
  };
}

const SERVICES_WITH_A_DATABASE: ServiceName[] = ['operator-service', 'flight-request-service', 'webhook-service'];

/** The index migration of every database, as the migrate Jobs run it before a rollout (services only verify). */
async function migrateIndexes(mongoUrl: string, databases: Record<ServiceName, string>, compiled: boolean): Promise<void> {
  await Promise.all(
    SERVICES_WITH_A_DATABASE.map((name) =>
      promisify(execFile)(process.execPath, entryPoint(name, 'migrate', compiled), {
        cwd: REPO_ROOT,
        env: { PATH: process.env['PATH'] ?? '', MONGO_URL: mongoUrl, MONGO_DB: databases[name], LOG_LEVEL: 'warn' },
        // A migration that hangs must not outlive the run.
        timeout: READY_TIMEOUT_MS,
        killSignal: 'SIGKILL',
      }),
    ),
  );
}

/**
 * Node as a pod runs it (k8s/base): the manifests set the heap limit at half the 512 MiB memory limit and one V8
 * background thread, and V8 sizes its young generation from the memory limit it sees, 1 MiB semi-spaces at 512 MiB.
 * A process here sees the whole machine (semi-spaces of 64 MiB), so it is given the pod's sizes explicitly, and its
 * memory reads as a pod's would. scripts/start.sh runs the services with the same.
 */
export const POD_NODE_OPTIONS = ['--max-old-space-size=256', '--max-semi-space-size=1', '--v8-pool-size=1'];

/**
 * Node's arguments for a service's entry point: its compiled JavaScript as the image runs it (the Dockerfile's
 * ENTRYPOINT, with the pod's node options), or its source under tsx; a caller's own node options before the script.
 */
export function entryPoint(name: ServiceName, entry: 'main' | 'migrate', compiled: boolean, nodeArgs: string[] = []): string[] {
  return compiled
    ? [...POD_NODE_OPTIONS, '--conditions=compiled', ...nodeArgs, `services/${name}/dist/${entry}.js`]
    : ['--import', 'tsx', ...nodeArgs, `services/${name}/src/${entry}.ts`];
}

/** A test run that dies early must not leave services behind. */
const processesToReap = new Set<() => Promise<void>>();
process.once('exit', () => {
  for (const stop of processesToReap) void stop();
});

async function dropDatabases(mongoUrl: string, names: string[]): Promise<void> {
  const connection = await mongoose.createConnection(mongoUrl).asPromise();
  try {
    for (const name of names) await connection.useDb(name).dropDatabase();
  } finally {
    await connection.close();
  }
}

async function ready(base: string): Promise<boolean> {
  try {
    const response = await fetch(`${base}/readyz`, { signal: AbortSignal.timeout(2000) });
    return response.status === 200;
  } catch {
    return false;
  }
}
