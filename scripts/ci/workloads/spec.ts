/**
 * The parts of the Kubernetes API the workload runner reads, and what it does with each field.
 *
 * FIELDS lists, per object path, every field the runner knows: `honoured` (with how) or `ignored`
 * (with why). A field the runner does not know fails the run, so a manifest change that the runner
 * would silently skip cannot pass CI unnoticed; teach the runner the field instead.
 */

export interface Metadata {
  name: string;
  namespace?: string;
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
}

export interface K8sObject {
  apiVersion: string;
  kind: string;
  metadata: Metadata;
  [field: string]: unknown;
}

export interface KeyToPath {
  key: string;
  path: string;
  mode?: number;
}

export interface KeysSource {
  name: string;
  items?: KeyToPath[];
  optional?: boolean;
}

export interface Volume {
  name: string;
  projected?: { sources: { secret?: KeysSource; configMap?: KeysSource }[]; defaultMode?: number };
  secret?: { secretName: string; items?: KeyToPath[]; defaultMode?: number; optional?: boolean };
  configMap?: KeysSource & { defaultMode?: number };
  emptyDir?: { medium?: string; sizeLimit?: string | number };
}

export interface KeySelector {
  name: string;
  key: string;
  optional?: boolean;
}

export interface EnvVar {
  name: string;
  value?: string;
  valueFrom?: { secretKeyRef?: KeySelector; configMapKeyRef?: KeySelector };
}

export interface EnvFromSource {
  prefix?: string;
  configMapRef?: { name: string; optional?: boolean };
  secretRef?: { name: string; optional?: boolean };
}

export interface Probe {
  httpGet?: { path?: string; port: number | string; host?: string; scheme?: string; httpHeaders?: { name: string; value: string }[] };
  tcpSocket?: { port: number | string; host?: string };
  initialDelaySeconds?: number;
  periodSeconds?: number;
  timeoutSeconds?: number;
  successThreshold?: number;
  failureThreshold?: number;
}

export interface ContainerPort {
  name?: string;
  containerPort: number;
  protocol?: string;
}

export interface SecurityContext {
  runAsUser?: number;
  runAsGroup?: number;
  runAsNonRoot?: boolean;
  fsGroup?: number;
  supplementalGroups?: number[];
  seccompProfile?: { type: string };
  readOnlyRootFilesystem?: boolean;
  allowPrivilegeEscalation?: boolean;
  privileged?: boolean;
  capabilities?: { add?: string[]; drop?: string[] };
}

export interface Container {
  name: string;
  image: string;
  command?: string[];
  args?: string[];
  workingDir?: string;
  env?: EnvVar[];
  envFrom?: EnvFromSource[];
  ports?: ContainerPort[];
  readinessProbe?: Probe;
  livenessProbe?: Probe;
  startupProbe?: Probe;
  resources?: { requests?: Record<string, string | number>; limits?: Record<string, string | number> };
  securityContext?: SecurityContext;
  volumeMounts?: { name: string; mountPath: string; readOnly?: boolean; subPath?: string }[];
}

export interface PodSpec {
  containers: Container[];
  volumes?: Volume[];
  securityContext?: SecurityContext;
  restartPolicy?: string;
  terminationGracePeriodSeconds?: number;
  automountServiceAccountToken?: boolean;
  enableServiceLinks?: boolean;
}

export interface PodTemplate {
  metadata?: { labels?: Record<string, string> };
  spec: PodSpec;
}

export interface Workload {
  kind: 'Deployment' | 'Job';
  name: string;
  namespace: string;
  template: PodTemplate;
  /** Deployment: progressDeadlineSeconds (600); Job: activeDeadlineSeconds (none: 900 here). */
  deadlineSeconds: number;
  /** Deployment: minReadySeconds. */
  minReadySeconds?: number;
  /** Deployment: spec.selector.matchLabels. */
  selector?: Record<string, string>;
}

export interface Service {
  name: string;
  namespace: string;
  selector: Record<string, string>;
  ports: { name?: string; port: number; targetPort?: number | string; protocol?: string }[];
}

type Rule = 'honoured' | `honoured: ${string}` | `ignored: ${string}`;

const SCHEDULING = 'ignored: scheduling; everything runs on this one machine';
const ROLLOUT = 'ignored: no rolling update here, each workload is started once';

/** Every field the runner knows, per path. `*` matches any key (map entries). */
export const FIELDS: Record<string, Record<string, Rule>> = {
  'Deployment.spec': {
    replicas: 'ignored: one replica of each Deployment (the autoscaling component removes the field anyway)',
    selector: 'honoured: matchLabels must match the pod template labels (as the API server checks)',
    template: 'honoured: the pod, below',
    revisionHistoryLimit: ROLLOUT,
    strategy: ROLLOUT,
    minReadySeconds: 'honoured: waited after the first readiness success',
    progressDeadlineSeconds: 'honoured: the time a Deployment has to become ready (600 when unset)',
  },
  'Deployment.spec.selector': { matchLabels: 'honoured: checked against the template labels' },
  'Job.spec': {
    template: 'honoured: the pod, below',
    backoffLimit: 'ignored: no retries; the first run must exit 0 (a Job that needs a retry on a fresh install is a finding)',
    activeDeadlineSeconds: 'honoured: the time the Job has to complete',
    ttlSecondsAfterFinished: 'ignored: the runner removes everything at the end',
    completions: 'honoured: only 1 is supported',
    parallelism: 'honoured: only 1 is supported',
  },
  'pod.metadata': { labels: 'honoured: matched by Service selectors (network aliases)' },
  'pod.spec': {
    containers: 'honoured: each a podman container; the first owns the pod network namespace, the others join it',
    volumes: 'honoured: see volumes',
    securityContext: 'honoured: see securityContext',
    restartPolicy: 'honoured: never restarted here; a Deployment container that exits fails the run, a Job container must exit 0',
    terminationGracePeriodSeconds: 'honoured: podman --stop-timeout',
    automountServiceAccountToken: 'honoured: no token is ever mounted (no API server); true is refused',
    enableServiceLinks: 'honoured: no <SERVICE>_SERVICE_HOST variables are set; true is refused',
    topologySpreadConstraints: SCHEDULING,
    affinity: SCHEDULING,
    nodeSelector: SCHEDULING,
    tolerations: SCHEDULING,
    priorityClassName: SCHEDULING,
    serviceAccountName: 'ignored: no API server to talk to',
  },
  'pod.spec.securityContext': {
    runAsUser: 'honoured: --user',
    runAsGroup: 'honoured: --user uid:gid',
    runAsNonRoot: 'honoured: the effective uid (spec or image) must be numeric and not 0, as the kubelet checks',
    fsGroup: 'honoured: --group-add; secret/configMap/projected files are group-owned by it (mode | 0440), as the kubelet does',
    supplementalGroups: 'honoured: --group-add',
    seccompProfile: 'honoured: RuntimeDefault is podman default profile; Unconfined turns it off; Localhost is refused',
    fsGroupChangePolicy: 'ignored: the files are written with their group in the first place',
  },
  container: {
    name: 'honoured: container name <prefix>-<workload>[-<container>]',
    image: 'honoured: mapped to a locally built image (--image-map); an unmapped image fails (no registry here)',
    imagePullPolicy: 'ignored: images are local',
    command: 'honoured: --entrypoint (replaces the image ENTRYPOINT and CMD)',
    args: 'honoured: the arguments after the image (replace CMD)',
    workingDir: 'honoured: --workdir',
    env: 'honoured: value with $(VAR) expansion, valueFrom secretKeyRef/configMapKeyRef (optional honoured)',
    envFrom: 'honoured: configMapRef/secretRef with prefix and optional; keys that are no valid variable name are skipped',
    ports: 'honoured: named ports resolve probe and Service ports; hostPort is refused',
    readinessProbe: 'honoured: polled from the host at the pod IP; the workload is up once it passes (after the startup probe)',
    livenessProbe: 'honoured: polled from the host from startup on, until the end; failureThreshold failures fail the run',
    startupProbe: 'honoured: polled from the host; failureThreshold failures fail the run',
    resources: 'honoured: see resources',
    securityContext: 'honoured: see securityContext',
    volumeMounts: 'honoured: see volumes',
    lifecycle: 'ignored: preStop hooks only matter while a rollout takes a pod out of its Service; the run ends by removing everything',
    terminationMessagePath: 'ignored: no API server to report to',
    terminationMessagePolicy: 'ignored: no API server to report to',
  },
  'container.securityContext': {
    runAsUser: 'honoured: --user (overrides the pod)',
    runAsGroup: 'honoured: --user uid:gid (overrides the pod)',
    runAsNonRoot: 'honoured: as the pod field',
    readOnlyRootFilesystem: 'honoured: --read-only (and no implicit tmpfs: --read-only-tmpfs=false)',
    allowPrivilegeEscalation: 'honoured: false is --security-opt no-new-privileges',
    privileged: 'honoured: true is --privileged',
    capabilities: 'honoured: --cap-drop / --cap-add',
    seccompProfile: 'honoured: as the pod field (overrides it)',
  },
  'container.resources': {
    limits: 'honoured: see resources.limits',
    requests: 'honoured: see resources.requests',
  },
  'container.resources.limits': {
    memory: 'honoured: --memory (cgroup v1 memory controller)',
    cpu: 'honoured: --cpus',
    'ephemeral-storage': 'ignored: enforced by kubelet eviction; podman has no equivalent on this storage driver',
  },
  'container.resources.requests': {
    cpu: 'honoured: --cpu-shares (millicores * 1024 / 1000, as the kubelet on cgroup v1)',
    memory: 'ignored: a scheduling input; the kubelet sets no cgroup value from it on cgroup v1',
    'ephemeral-storage': 'ignored: a scheduling input',
  },
  'container.volumeMounts': {
    name: 'honoured',
    mountPath: 'honoured',
    readOnly: 'honoured: secret/configMap/projected files are always read-only (as in Kubernetes); tmpfs gets ro',
    subPath: 'honoured: one file of a secret/configMap/projected volume',
  },
  volume: {
    name: 'honoured',
    projected: 'honoured: secret and configMap sources, items, defaultMode and item mode; files bind-mounted read-only one by one',
    secret: 'honoured: as projected',
    configMap: 'honoured: as projected',
    emptyDir:
      "honoured: a tmpfs of sizeLimit (a hard limit here, where the kubelet evicts; podman's default size when unset); medium Memory the same",
  },
  'Service.spec': {
    selector:
      'honoured: must select a Deployment pod template; its Service name (and .<namespace>[.svc[.cluster.local]]) becomes a network alias of those pods',
    ports:
      'honoured: targetPort (a name or number) must be a port of the selected containers and equal port (an alias cannot remap ports), unless the port only renames another port of the Service',
    type: 'honoured: ClusterIP only',
  },
  probe: {
    httpGet: 'honoured: path, port (name or number), host, scheme, httpHeaders; 200-399 is success',
    tcpSocket: 'honoured: a TCP connect',
    initialDelaySeconds: 'honoured',
    periodSeconds: 'honoured',
    timeoutSeconds: 'honoured',
    successThreshold: 'honoured',
    failureThreshold: 'honoured',
    terminationGracePeriodSeconds: 'ignored: nothing is restarted here',
  },
};

/** Problems for every key of `object` that FIELDS does not list under `path`. */
export function unknownFields(object: object | undefined, path: string, where: string): string[] {
  if (!object) return [];
  const known = FIELDS[path] ?? {};
  return Object.keys(object)
    .filter((key) => !(key in known))
    .map((key) => `${where}: the runner does not know ${path}.${key}; teach scripts/ci/workloads/spec.ts what to do with it`);
}

/** The ignored fields that occur in `object` under `path`, as "path.field (why)". */
export function ignoredFields(object: object | undefined, path: string): string[] {
  if (!object) return [];
  const known = FIELDS[path] ?? {};
  return Object.keys(object)
    .filter((key) => known[key]?.startsWith('ignored'))
    .map((key) => `${path}.${key} (${known[key]!.replace(/^ignored: /, '')})`);
}

/** Kinds that exist in a cluster only (an API, a controller or a CRD's operator); listed as not started. */
export const NOT_STARTED: Record<string, string> = {
  Ingress: 'needs an ingress controller; the gateway Service port is published on the host instead',
  NetworkPolicy: 'needs a CNI that enforces it; podman networks do not',
  HorizontalPodAutoscaler: 'needs the metrics API; one replica runs',
  PodDisruptionBudget: 'needs the eviction API; nothing is evicted here',
  ServiceMonitor: 'needs the Prometheus operator',
  PrometheusRule: 'needs the Prometheus operator (the rules are tested with promtool elsewhere)',
  Namespace: 'no API server; the namespace is only part of the names',
};

/** Kubernetes quantity ("512Mi", "64M", "1G", "1024") to bytes. */
export function bytes(quantity: string | number): number {
  if (typeof quantity === 'number') return quantity;
  const match = /^([0-9.]+)(Ki|Mi|Gi|Ti|k|M|G|T|m)?$/.exec(quantity);
  if (!match) throw new Error(`not a quantity: ${quantity}`);
  const factor: Record<string, number> = { Ki: 2 ** 10, Mi: 2 ** 20, Gi: 2 ** 30, Ti: 2 ** 40, k: 1e3, M: 1e6, G: 1e9, T: 1e12, m: 1e-3 };
  return Math.ceil(Number(match[1]) * (match[2] ? factor[match[2]]! : 1));
}

/** Kubernetes CPU quantity ("200m", "1.5") to millicores. */
export function millicores(quantity: string | number): number {
  if (typeof quantity === 'number') return Math.round(quantity * 1000);
  return quantity.endsWith('m') ? Number(quantity.slice(0, -1)) : Math.round(Number(quantity) * 1000);
}

export function matchesSelector(selector: Record<string, string>, labels: Record<string, string> | undefined): boolean {
  const entries = Object.entries(selector);
  return entries.length > 0 && entries.every(([key, value]) => labels?.[key] === value);
}
