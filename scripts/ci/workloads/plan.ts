/**
 * From a pod template to `podman run` arguments: env and envFrom, secret/configMap/projected files,
 * emptyDir, securityContext and resources, exactly as the spec says (spec.ts FIELDS lists what is
 * honoured and what not). Everything a kubelet would refuse to start is a problem here too.
 */
import { chmodSync, chownSync, mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join, posix } from 'node:path';
import {
  bytes,
  millicores,
  type Container,
  type KeyToPath,
  type KeysSource,
  type PodSpec,
  type Probe,
  type SecurityContext,
  type Volume,
  type Workload,
} from './spec.js';

/** Secret and ConfigMap contents by name, then key. */
export interface Values {
  secrets: Map<string, Map<string, Buffer>>;
  configMaps: Map<string, Map<string, Buffer>>;
}

export interface ContainerPlan {
  /** podman container name. */
  name: string;
  workload: Workload;
  container: Container;
  /** Everything between `podman run -d` and the image. */
  options: string[];
  image: string;
  /** --entrypoint JSON when command is set. */
  entrypoint?: string[];
  args: string[];
  probes: { startup?: Probe; readiness?: Probe; liveness?: Probe };
  ports: Map<string, number>;
  /** Memory limit in bytes, when set. */
  memoryLimit?: number;
}

export interface PlanContext {
  values: Values;
  /** image name → local image: matched on the repository path without registry host, tag or digest. */
  imageMap: Map<string, string>;
  /** The user each local image runs as (its USER), for runAsNonRoot; undefined: not built yet (--check). */
  imageUser: (image: string) => string | undefined;
  stateDir: string;
  prefix: string;
  network: string;
  runLabel: string;
  /** Network aliases of the pod (the Services selecting it) and published ports, by workload name. */
  aliases: Map<string, string[]>;
  publish: Map<string, string[]>;
}

export class PlanProblems extends Error {
  constructor(readonly problems: string[]) {
    super(problems.join('\n'));
  }
}

export function containerName(prefix: string, workload: Workload, index: number, container: Container): string {
  return index === 0 ? `${prefix}-${workload.name}` : `${prefix}-${workload.name}-${container.name}`;
}

/** The plans of one workload's containers (one replica); throws PlanProblems listing everything wrong. */
export function planWorkload(workload: Workload, context: PlanContext): ContainerPlan[] {
  const problems: string[] = [];
  const spec = workload.template.spec;
  const where = `${workload.kind}/${workload.name}`;
  if (spec.automountServiceAccountToken !== false)
    problems.push(`${where}: automountServiceAccountToken is not false; the runner has no token to mount`);
  if (spec.enableServiceLinks !== false) problems.push(`${where}: enableServiceLinks is not false; the runner sets no service link variables`);
  const files = materialiseVolumes(workload, context, problems);
  const plans = spec.containers.map((container, index) => {
    const name = containerName(context.prefix, workload, index, container);
    const at = `${where} container ${container.name}`;
    const image = mapImage(container.image, context.imageMap, at, problems);
    const env = resolveEnv(container, context.values, at, problems);
    const options = [
      '--name',
      name,
      '--label',
      `dfc.workloads.run=${context.runLabel}`,
      '--label',
      `dfc.workloads.workload=${workload.kind}/${workload.name}`,
      ...networkOptions(workload, index, context),
      '--stop-timeout',
      String(spec.terminationGracePeriodSeconds ?? 30),
      ...(container.workingDir ? ['--workdir', container.workingDir] : []),
      ...[...env].flatMap(([key, value]) => ['--env', `${key}=${value}`]),
      ...securityOptions(spec, container, image ? context.imageUser(image) : undefined, at, problems),
      ...resourceOptions(container, at, problems),
      ...mountOptions(container, spec, files, at, problems),
    ];
    const ports = new Map<string, number>();
    for (const port of container.ports ?? []) {
      if (port.name) ports.set(port.name, port.containerPort);
      if ('hostPort' in port) problems.push(`${at}: hostPort is not supported`);
    }
    for (const [kind, probe] of Object.entries({
      startup: container.startupProbe,
      readiness: container.readinessProbe,
      liveness: container.livenessProbe,
    })) {
      if (probe) checkProbe(probe, ports, `${at} ${kind}Probe`, problems);
    }
    const memory = container.resources?.limits?.['memory'];
    return {
      name,
      workload,
      container,
      options,
      image: image ?? container.image,
      ...(container.command ? { entrypoint: container.command.map((word) => expand(word, env)) } : {}),
      args: (container.args ?? []).map((word) => expand(word, env)),
      probes: { startup: container.startupProbe, readiness: container.readinessProbe, liveness: container.livenessProbe },
      ports,
      ...(memory !== undefined ? { memoryLimit: bytes(memory) } : {}),
    } satisfies ContainerPlan;
  });
  if (problems.length > 0) throw new PlanProblems(problems);
  return plans;
}

export function podmanRunArgs(plan: ContainerPlan): string[] {
  return [
    'run',
    '--detach',
    ...plan.options,
    ...(plan.entrypoint ? ['--entrypoint', JSON.stringify(plan.entrypoint)] : []),
    plan.image,
    ...plan.args,
  ];
}

function mapImage(image: string, imageMap: Map<string, string>, at: string, problems: string[]): string | undefined {
  const repository = image.replace(/@.*$/, '').replace(/:[^/]*$/, '');
  for (const [name, local] of imageMap) {
    if (repository === name || repository.endsWith(`/${name}`)) return local;
  }
  problems.push(`${at}: image ${image} has no local build (--image-map) and no registry is reachable here`);
  return undefined;
}

/** The first container joins the network under the pod's Service names; the others share its namespace. */
function networkOptions(workload: Workload, index: number, context: PlanContext): string[] {
  if (index > 0) return ['--network', `container:${context.prefix}-${workload.name}`];
  return [
    '--network',
    context.network,
    '--hostname',
    workload.name,
    ...(context.aliases.get(workload.name) ?? []).flatMap((alias) => ['--network-alias', alias]),
    ...(context.publish.get(workload.name) ?? []).flatMap((publish) => ['--publish', publish]),
  ];
}

function lookup(
  values: Map<string, Map<string, Buffer>>,
  kind: string,
  name: string,
  key: string | undefined,
  optional: boolean | undefined,
  at: string,
  problems: string[],
): Buffer | Map<string, Buffer> | undefined {
  const object = values.get(name);
  if (!object) {
    if (!optional) problems.push(`${at}: ${kind} ${name} does not exist (the pod would stay in CreateContainerConfigError)`);
    return undefined;
  }
  if (key === undefined) return object;
  const value = object.get(key);
  if (value === undefined && !optional) problems.push(`${at}: ${kind} ${name} has no key ${key}`);
  return value;
}

/** envFrom first (in order), then env (in order, $(VAR) expanded against what is defined so far). */
export function resolveEnv(container: Container, values: Values, at: string, problems: string[]): Map<string, string> {
  const env = new Map<string, string>();
  for (const source of container.envFrom ?? []) {
    const [kind, ref, store] = source.configMapRef
      ? (['ConfigMap', source.configMapRef, values.configMaps] as const)
      : source.secretRef
        ? (['Secret', source.secretRef, values.secrets] as const)
        : [undefined, undefined, undefined];
    if (!kind) {
      problems.push(`${at}: envFrom entry without configMapRef or secretRef`);
      continue;
    }
    const object = lookup(store, kind, ref.name, undefined, ref.optional, `${at} envFrom`, problems);
    if (!(object instanceof Map)) continue;
    for (const [key, value] of object) {
      const name = `${source.prefix ?? ''}${key}`;
      if (/^[-._a-zA-Z][-._a-zA-Z0-9]*$/.test(name)) env.set(name, value.toString('utf8'));
    }
  }
  for (const variable of container.env ?? []) {
    if (variable.value !== undefined || !variable.valueFrom) {
      env.set(variable.name, expand(variable.value ?? '', env));
      continue;
    }
    const { secretKeyRef, configMapKeyRef, ...other } = variable.valueFrom;
    const unsupported = Object.keys(other);
    if (unsupported.length > 0) problems.push(`${at}: env ${variable.name} valueFrom ${unsupported.join(', ')} is not supported by the runner`);
    const [kind, ref, store] = secretKeyRef
      ? (['Secret', secretKeyRef, values.secrets] as const)
      : (['ConfigMap', configMapKeyRef, values.configMaps] as const);
    if (!ref) continue;
    const value = lookup(store, kind, ref.name, ref.key, ref.optional, `${at} env ${variable.name}`, problems);
    if (value instanceof Buffer) env.set(variable.name, value.toString('utf8'));
  }
  return env;
}

/** $(VAR) to its value when defined, $$ to $, anything else untouched (Kubernetes' expansion). */
export function expand(text: string, env: Map<string, string>): string {
  return text.replace(/\$\$|\$\(([-._a-zA-Z][-._a-zA-Z0-9]*)\)/g, (match, name: string | undefined) => {
    if (name === undefined) return '$';
    return env.get(name) ?? match;
  });
}

/** File volumes, written under stateDir/<workload>/<volume>/ with their mode and group: volume → path → host file. */
function materialiseVolumes(workload: Workload, context: PlanContext, problems: string[]): Map<string, Map<string, string>> {
  const spec = workload.template.spec;
  const fsGroup = spec.securityContext?.fsGroup;
  const result = new Map<string, Map<string, string>>();
  for (const volume of spec.volumes ?? []) {
    const at = `${workload.kind}/${workload.name} volume ${volume.name}`;
    const entries = volumeEntries(volume, context.values, at, problems);
    if (!entries) continue;
    const files = new Map<string, string>();
    for (const entry of entries) {
      if (entry.path.split('/').includes('..') || posix.isAbsolute(entry.path)) {
        problems.push(`${at}: path ${entry.path} must be relative without ..`);
        continue;
      }
      const file = join(context.stateDir, workload.name, volume.name, entry.path);
      mkdirSync(dirname(file), { recursive: true });
      writeFileSync(file, entry.content);
      // As the kubelet: files owned by root; with fsGroup, group fsGroup and mode | 0440 (read-only volume).
      chownSync(file, 0, fsGroup ?? 0);
      chmodSync(file, fsGroup === undefined ? entry.mode : entry.mode | 0o440);
      files.set(entry.path, file);
    }
    result.set(volume.name, files);
  }
  return result;
}

interface FileEntry {
  path: string;
  content: Buffer;
  mode: number;
}

/** A secret/configMap/projected volume's files; undefined for emptyDir; a problem for anything else. */
function volumeEntries(volume: Volume, values: Values, at: string, problems: string[]): FileEntry[] | undefined {
  const { name: _name, projected, secret, configMap, emptyDir, ...other } = volume;
  if (Object.keys(other).length > 0) problems.push(`${at}: volume type ${Object.keys(other).join(', ')} is not supported by the runner`);
  if (emptyDir) return undefined;
  if (secret)
    return keysToFiles(
      'Secret',
      values.secrets,
      { name: secret.secretName, items: secret.items, optional: secret.optional },
      secret.defaultMode ?? 0o644,
      at,
      problems,
    );
  if (configMap) return keysToFiles('ConfigMap', values.configMaps, configMap, configMap.defaultMode ?? 0o644, at, problems);
  if (!projected) return undefined;
  return projected.sources.flatMap((source) => {
    const { secret: fromSecret, configMap: fromConfigMap, ...rest } = source;
    if (Object.keys(rest).length > 0) problems.push(`${at}: projected source ${Object.keys(rest).join(', ')} is not supported by the runner`);
    if (fromSecret) return keysToFiles('Secret', values.secrets, fromSecret, projected.defaultMode ?? 0o644, at, problems);
    if (fromConfigMap) return keysToFiles('ConfigMap', values.configMaps, fromConfigMap, projected.defaultMode ?? 0o644, at, problems);
    return [];
  });
}

function keysToFiles(
  kind: string,
  store: Map<string, Map<string, Buffer>>,
  source: KeysSource,
  defaultMode: number,
  at: string,
  problems: string[],
): FileEntry[] {
  const object = lookup(store, kind, source.name, undefined, source.optional, at, problems);
  if (!(object instanceof Map)) return [];
  const items: KeyToPath[] = source.items ?? [...object.keys()].map((key) => ({ key, path: key }));
  return items.flatMap((item) => {
    const content = lookup(store, kind, source.name, item.key, source.optional, at, problems);
    return content instanceof Buffer ? [{ path: item.path, content, mode: item.mode ?? defaultMode }] : [];
  });
}

/** Each file bind-mounted read-only at mountPath/path; emptyDir a tmpfs of its sizeLimit. */
function mountOptions(container: Container, spec: PodSpec, files: Map<string, Map<string, string>>, at: string, problems: string[]): string[] {
  const options: string[] = [];
  const fsGroup = spec.securityContext?.fsGroup;
  for (const mount of container.volumeMounts ?? []) {
    const volume = (spec.volumes ?? []).find((candidate) => candidate.name === mount.name);
    if (!volume) {
      problems.push(`${at}: volumeMount ${mount.name} names no volume of the pod`);
      continue;
    }
    if (volume.emptyDir) {
      if (mount.subPath) problems.push(`${at}: subPath on an emptyDir is not supported by the runner`);
      const limit = volume.emptyDir.sizeLimit;
      const size = limit === undefined ? '' : `,tmpfs-size=${bytes(limit)}`;
      // emptyDir is 0777; with fsGroup the kubelet adds setgid (podman's tmpfs takes no gid option).
      const mode = fsGroup === undefined ? '0777' : '2777';
      options.push('--mount', `type=tmpfs,destination=${mount.mountPath}${size},tmpfs-mode=${mode}${mount.readOnly ? ',ro=true' : ''}`);
      continue;
    }
    const volumeFiles = files.get(mount.name);
    if (!volumeFiles) continue;
    const chosen = mount.subPath ? [...volumeFiles].filter(([path]) => path === mount.subPath) : [...volumeFiles];
    if (mount.subPath && chosen.length === 0) problems.push(`${at}: subPath ${mount.subPath} is no file of volume ${mount.name}`);
    for (const [path, file] of chosen) {
      const destination = mount.subPath ? mount.mountPath : posix.join(mount.mountPath, path);
      // relabel: on SELinux hosts (a Fedora laptop) the container may read the file; a no-op elsewhere.
      options.push('--mount', `type=bind,source=${file},destination=${destination},ro=true,relabel=private`);
    }
  }
  return options;
}

/** --user, --group-add, --read-only, --cap-drop/--cap-add, no-new-privileges, seccomp; runAsNonRoot checked. */
function securityOptions(spec: PodSpec, container: Container, imageUser: string | undefined, at: string, problems: string[]): string[] {
  const pod: SecurityContext = spec.securityContext ?? {};
  const own: SecurityContext = container.securityContext ?? {};
  const options: string[] = [];
  const uid = own.runAsUser ?? pod.runAsUser;
  const gid = own.runAsGroup ?? pod.runAsGroup;
  if (uid !== undefined) options.push('--user', gid !== undefined ? `${uid}:${gid}` : String(uid));
  else if (gid !== undefined) problems.push(`${at}: runAsGroup without runAsUser is not supported by the runner`);
  const effectiveUid = uid !== undefined ? String(uid) : imageUser?.split(':')[0];
  if ((own.runAsNonRoot ?? pod.runAsNonRoot) === true && effectiveUid !== undefined && !/^[1-9][0-9]*$/.test(effectiveUid)) {
    problems.push(`${at}: runAsNonRoot, but the container would run as "${effectiveUid || 'root'}" (the kubelet refuses a non-numeric or 0 uid)`);
  }
  for (const group of [...(pod.fsGroup !== undefined ? [pod.fsGroup] : []), ...(pod.supplementalGroups ?? [])])
    options.push('--group-add', String(group));
  if (own.readOnlyRootFilesystem) options.push('--read-only', '--read-only-tmpfs=false');
  if (own.privileged) options.push('--privileged');
  if (own.allowPrivilegeEscalation === false) options.push('--security-opt', 'no-new-privileges');
  for (const capability of own.capabilities?.drop ?? []) options.push('--cap-drop', capability);
  for (const capability of own.capabilities?.add ?? []) options.push('--cap-add', capability);
  const seccomp = (own.seccompProfile ?? pod.seccompProfile)?.type;
  if (seccomp === 'Unconfined') options.push('--security-opt', 'seccomp=unconfined');
  else if (seccomp !== undefined && seccomp !== 'RuntimeDefault') problems.push(`${at}: seccompProfile ${seccomp} is not supported by the runner`);
  return options;
}

function resourceOptions(container: Container, at: string, problems: string[]): string[] {
  const options: string[] = [];
  const { limits = {}, requests = {} } = container.resources ?? {};
  try {
    if (limits['memory'] !== undefined) options.push('--memory', String(bytes(limits['memory'])));
    if (limits['cpu'] !== undefined) options.push('--cpus', String(millicores(limits['cpu']) / 1000));
    if (requests['cpu'] !== undefined) options.push('--cpu-shares', String(Math.max(2, Math.floor((millicores(requests['cpu']) * 1024) / 1000))));
  } catch (error) {
    problems.push(`${at}: resources: ${(error as Error).message}`);
  }
  return options;
}

/** A named probe port must be a port of the container (the kubelet would fail the probe forever). */
function checkProbe(probe: Probe, ports: Map<string, number>, at: string, problems: string[]): void {
  const { httpGet, tcpSocket, ...rest } = probe;
  const kinds = Object.keys(rest).filter((key) => !/Seconds$|Threshold$/.test(key));
  if (kinds.length > 0) problems.push(`${at}: ${kinds.join(', ')} probes are not supported by the runner`);
  const port = (httpGet ?? tcpSocket)?.port;
  if (port === undefined) {
    if (kinds.length === 0) problems.push(`${at}: neither httpGet nor tcpSocket`);
    return;
  }
  if (typeof port === 'string' && !/^[0-9]+$/.test(port) && !ports.has(port)) {
    problems.push(`${at}: port "${port}" is no named port of the container (it has ${[...ports.keys()].join(', ') || 'none'})`);
  }
}

export function probePort(probe: Probe, ports: Map<string, number>): number {
  const port = (probe.httpGet ?? probe.tcpSocket)!.port;
  if (typeof port === 'number') return port;
  return ports.get(port) ?? Number(port);
}
