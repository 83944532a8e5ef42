/**
 * The rendered manifests sorted into what the runner starts (Deployments, Jobs), what wires them
 * (Services, ConfigMaps, Secrets) and what only a cluster has (listed as not started), with every
 * field checked against spec.ts FIELDS and every Service checked against the pods it selects.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseAllDocuments } from 'yaml';
import type { Values } from './plan.js';
import { ignoredFields, matchesSelector, NOT_STARTED, unknownFields, type K8sObject, type PodTemplate, type Service, type Workload } from './spec.js';

export interface Inventory {
  workloads: Workload[];
  services: Service[];
  values: Values;
  /** "Kind/name: why" for every object that needs a cluster. */
  notStarted: string[];
  /** "path.field (why)" for every ignored field that occurs. */
  ignored: Set<string>;
  /** CI test values that differ from the manifests, for the log. */
  overrides: string[];
  problems: string[];
}

export function loadManifests(file: string): K8sObject[] {
  return parseAllDocuments(readFileSync(file, 'utf8'))
    .map((document) => {
      if (document.errors.length > 0) throw new Error(`${file}: ${document.errors.map((error) => error.message).join('; ')}`);
      return document.toJS() as K8sObject | null;
    })
    .filter((object): object is K8sObject => object !== null && typeof object === 'object');
}

export function takeInventory(objects: K8sObject[], valuesDir: string | undefined): Inventory {
  const inventory: Inventory = {
    workloads: [],
    services: [],
    values: { secrets: new Map(), configMaps: new Map() },
    notStarted: [],
    ignored: new Set(),
    overrides: [],
    problems: [],
  };
  for (const object of objects) sortObject(object, inventory);
  if (valuesDir) addTestValues(valuesDir, inventory);
  return inventory;
}

function sortObject(object: K8sObject, inventory: Inventory): void {
  const { kind, metadata } = object;
  const namespace = metadata.namespace ?? 'default';
  const spec = (object['spec'] ?? {}) as Record<string, unknown>;
  const where = `${kind}/${metadata.name}`;
  const note = (path: string, value: object | undefined) => {
    inventory.problems.push(...unknownFields(value, path, where));
    for (const field of ignoredFields(value, path)) inventory.ignored.add(field);
  };
  switch (kind) {
    case 'Deployment': {
      note('Deployment.spec', spec);
      note('Deployment.spec.selector', spec['selector'] as object);
      const template = spec['template'] as PodTemplate;
      const selector = (spec['selector'] as { matchLabels?: Record<string, string> } | undefined)?.matchLabels ?? {};
      if (!matchesSelector(selector, template.metadata?.labels))
        inventory.problems.push(
          `${where}: spec.selector.matchLabels ${JSON.stringify(selector)} does not match the pod template labels (the API server refuses it)`,
        );
      checkPod(template, note);
      inventory.workloads.push({
        kind,
        name: metadata.name,
        namespace,
        template,
        selector,
        deadlineSeconds: Number(spec['progressDeadlineSeconds'] ?? 600),
        minReadySeconds: Number(spec['minReadySeconds'] ?? 0),
      });
      return;
    }
    case 'Job': {
      note('Job.spec', spec);
      for (const field of ['completions', 'parallelism'] as const) {
        if (spec[field] !== undefined && spec[field] !== 1)
          inventory.problems.push(`${where}: ${field} ${JSON.stringify(spec[field])} is not supported by the runner (1 only)`);
      }
      const template = spec['template'] as PodTemplate;
      checkPod(template, note);
      inventory.workloads.push({ kind, name: metadata.name, namespace, template, deadlineSeconds: Number(spec['activeDeadlineSeconds'] ?? 900) });
      return;
    }
    case 'Service': {
      note('Service.spec', spec);
      if ((spec['type'] ?? 'ClusterIP') !== 'ClusterIP')
        inventory.problems.push(`${where}: type ${String(spec['type'])} is not supported by the runner`);
      inventory.services.push({
        name: metadata.name,
        namespace,
        selector: (spec['selector'] ?? {}) as Record<string, string>,
        ports: (spec['ports'] ?? []) as Service['ports'],
      });
      return;
    }
    case 'ConfigMap':
    case 'Secret': {
      const store = kind === 'Secret' ? inventory.values.secrets : inventory.values.configMaps;
      store.set(metadata.name, objectData(object));
      return;
    }
    default:
      if (kind in NOT_STARTED) inventory.notStarted.push(`${where}: ${NOT_STARTED[kind]}`);
      else
        inventory.problems.push(
          `${where}: the runner does not know the kind ${kind}; teach scripts/ci/workloads/ to start it or list it in spec.ts NOT_STARTED`,
        );
  }
}

function checkPod(template: PodTemplate, note: (path: string, value: object | undefined) => void): void {
  note('pod.metadata', template.metadata);
  note('pod.spec', template.spec);
  note('pod.spec.securityContext', template.spec.securityContext);
  for (const volume of template.spec.volumes ?? []) note('volume', volume);
  for (const container of template.spec.containers) {
    note('container', container);
    note('container.securityContext', container.securityContext);
    note('container.resources', container.resources);
    note('container.resources.limits', container.resources?.limits);
    note('container.resources.requests', container.resources?.requests);
    for (const mount of container.volumeMounts ?? []) note('container.volumeMounts', mount);
    for (const probe of [container.startupProbe, container.readinessProbe, container.livenessProbe]) note('probe', probe);
  }
}

/** data (base64 for a Secret), binaryData and stringData, by key. */
function objectData(object: K8sObject): Map<string, Buffer> {
  const data = new Map<string, Buffer>();
  const encoded = object.kind === 'Secret' ? 'base64' : 'utf8';
  for (const [key, value] of Object.entries((object['data'] ?? {}) as Record<string, string>)) data.set(key, Buffer.from(value, encoded));
  for (const [key, value] of Object.entries((object['binaryData'] ?? {}) as Record<string, string>)) data.set(key, Buffer.from(value, 'base64'));
  for (const [key, value] of Object.entries((object['stringData'] ?? {}) as Record<string, string>)) data.set(key, Buffer.from(value, 'utf8'));
  return data;
}

/**
 * The test values: <dir>/secret/<name>/<key> and <dir>/configmap/<name>/<key>, one file per key
 * (as `kubectl create secret generic <name> --from-file=<dir>/secret/<name>` takes them). A key
 * that a rendered ConfigMap or Secret also has, or lacks, is a CI override and logged as one.
 */
function addTestValues(dir: string, inventory: Inventory): void {
  for (const [kind, folder, store] of [
    ['Secret', 'secret', inventory.values.secrets],
    ['ConfigMap', 'configmap', inventory.values.configMaps],
  ] as const) {
    const base = join(dir, folder);
    if (!existsSync(base)) continue;
    for (const name of readdirSync(base)) {
      const rendered = store.get(name);
      const object = rendered ?? new Map<string, Buffer>();
      for (const key of readdirSync(join(base, name))) {
        const value = readFileSync(join(base, name, key));
        if (rendered) {
          const before = rendered.get(key);
          const shown = kind === 'Secret' ? '<test value>' : value.toString('utf8');
          inventory.overrides.push(
            `${kind} ${name} ${key}=${shown} (CI test value; the manifests ${before === undefined ? 'leave it unset' : kind === 'Secret' ? 'have another' : `say ${before.toString('utf8')}`})`,
          );
        }
        object.set(key, value);
      }
      store.set(name, object);
    }
  }
}

/**
 * Each Service must select a Deployment pod template, and each of its ports must be a port of the
 * selected containers (a named targetPort by name) with the same number, since the runner gives
 * pods their Service names as network aliases and cannot remap ports. A port that only renames another
 * port of the same Service (the `metrics` name a ServiceMonitor scrapes, on a service's own http port)
 * is reached through that other port here. Returns the aliases per workload.
 */
export function wireServices(inventory: Inventory): Map<string, string[]> {
  const aliases = new Map<string, string[]>();
  const deployments = inventory.workloads.filter((workload) => workload.kind === 'Deployment');
  for (const service of inventory.services) {
    const where = `Service/${service.name}`;
    const selected = deployments.filter((workload) => matchesSelector(service.selector, workload.template.metadata?.labels));
    if (selected.length === 0) {
      const labels = deployments.map((workload) => `${workload.name} ${JSON.stringify(workload.template.metadata?.labels ?? {})}`).join('; ');
      inventory.problems.push(`${where}: selector ${JSON.stringify(service.selector)} selects no workload (pod labels: ${labels})`);
      continue;
    }
    for (const workload of selected) {
      for (const port of service.ports) {
        const resolved = targetPortOf(workload, port.targetPort ?? port.port);
        if (resolved === undefined)
          inventory.problems.push(
            `${where}: port ${port.name ?? port.port} targetPort "${String(port.targetPort)}" is no port of ${workload.kind}/${workload.name}'s containers`,
          );
        else if (
          resolved !== port.port &&
          !service.ports.some(
            (other) => other !== port && other.port === resolved && targetPortOf(workload, other.targetPort ?? other.port) === resolved,
          )
        )
          inventory.problems.push(
            `${where}: port ${port.port} targets ${resolved} in ${workload.name}; the runner's network aliases cannot remap ports`,
          );
      }
      const names = [
        service.name,
        `${service.name}.${service.namespace}`,
        `${service.name}.${service.namespace}.svc`,
        `${service.name}.${service.namespace}.svc.cluster.local`,
      ];
      aliases.set(workload.name, [...(aliases.get(workload.name) ?? []), ...names]);
    }
  }
  return aliases;
}

/** The container port a Service targetPort names: by port name, or a declared number. */
export function targetPortOf(workload: Workload, targetPort: number | string): number | undefined {
  const ports = workload.template.spec.containers.flatMap((container) => container.ports ?? []);
  if (typeof targetPort === 'number' || /^[0-9]+$/.test(targetPort))
    return ports.find((port) => port.containerPort === Number(targetPort))?.containerPort;
  return ports.find((port) => port.name === targetPort)?.containerPort;
}

/**
 * `--publish service/port=hostIP:hostPort`: the host port of a Service port, published on the
 * (one) pod that Service selects. Returns podman --publish values per workload.
 */
export function publishedPorts(inventory: Inventory, requests: string[]): Map<string, string[]> {
  const publish = new Map<string, string[]>();
  for (const request of requests) {
    const match = /^([^/=]+)\/([^=]+)=(.+):([0-9]+)$/.exec(request);
    const service = match && inventory.services.find((candidate) => candidate.name === match[1]);
    const port = match && service?.ports.find((candidate) => candidate.name === match[2] || String(candidate.port) === match[2]);
    const workload =
      service &&
      inventory.workloads.find(
        (candidate) => candidate.kind === 'Deployment' && matchesSelector(service.selector, candidate.template.metadata?.labels),
      );
    const containerPort = port && workload && targetPortOf(workload, port.targetPort ?? port.port);
    if (!match || !workload || containerPort === undefined) {
      inventory.problems.push(`--publish ${request}: no Service port of a started workload by that name (service/port=hostIP:hostPort)`);
      continue;
    }
    publish.set(workload.name, [...(publish.get(workload.name) ?? []), `${match[3]}:${match[4]}:${containerPort}`]);
  }
  return publish;
}
