/**
 * Known mistakes, each applied to a copy of the rendered production overlay, that the workload run
 * must fail on (scripts/ci/workloads/break-tests.sh runs scripts/ci/workloads.sh on each copy):
 *   npx tsx scripts/ci/workloads/breaks.ts RENDERED.yaml OUT_DIR   → OUT_DIR/<case>.yaml, and one
 *   line per case on stdout: <case><TAB><text the run's output must contain>
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { stringify } from 'yaml';
import { loadManifests } from './inventory.js';
import type { Container, K8sObject, PodTemplate } from './spec.js';

type Edit = (find: (kind: string, name: string) => K8sObject) => void;

const container = (object: K8sObject): Container => (object['spec'] as { template: PodTemplate }).template.spec.containers[0]!;
const service = (object: K8sObject) => object['spec'] as { selector: Record<string, string>; ports: { targetPort?: string | number }[] };

const CASES: { name: string; expect: string; edit: Edit }[] = [
  {
    name: 'missing-env',
    expect: 'INTERNAL_TOKEN_PUBLIC_KEY is required',
    edit: (find) => {
      const target = container(find('Deployment', 'operator-service'));
      target.env = target.env!.filter((variable) => variable.name !== 'INTERNAL_TOKEN_PUBLIC_KEY_FILE');
    },
  },
  {
    // No configuration error: the service falls back to MONGO_URL's default (127.0.0.1) and never listens.
    name: 'missing-env-with-default',
    expect: 'startup probe failed',
    edit: (find) => {
      const target = container(find('Deployment', 'webhook-service'));
      target.env = target.env!.filter((variable) => variable.name !== 'MONGO_URL_FILE');
    },
  },
  {
    name: 'wrong-secret-path',
    expect: 'AMQP_URL_FILE names a file that cannot be read: /run/secrets/dfc/amqp',
    edit: (find) => {
      const variable = container(find('Deployment', 'gateway')).env!.find((entry) => entry.name === 'AMQP_URL_FILE')!;
      variable.value = '/run/secrets/dfc/amqp';
    },
  },
  {
    name: 'wrong-secret-key',
    expect: 'Secret dfc-webhook-secret-key has no key WEBHOOK_SECRET',
    edit: (find) => {
      const spec = (find('Deployment', 'webhook-service')['spec'] as { template: PodTemplate }).template.spec;
      const source = spec.volumes![0]!.projected!.sources.find((entry) => entry.secret?.name === 'dfc-webhook-secret-key')!;
      source.secret!.items![0]!.key = 'WEBHOOK_SECRET';
    },
  },
  {
    name: 'service-selector-typo',
    expect: 'Service/operator-service: selector {"app.kubernetes.io/name":"operator-servce"} selects no workload',
    edit: (find) => {
      service(find('Service', 'operator-service')).selector['app.kubernetes.io/name'] = 'operator-servce';
    },
  },
  {
    name: 'service-target-port',
    expect: 'targetPort "htpp" is no port of Deployment/webhook-service',
    edit: (find) => {
      service(find('Service', 'webhook-service')).ports[0]!.targetPort = 'htpp';
    },
  },
  {
    name: 'probe-port-name',
    expect: 'readinessProbe: port "htpp" is no named port of the container',
    edit: (find) => {
      container(find('Deployment', 'gateway')).readinessProbe!.httpGet!.port = 'htpp';
    },
  },
  {
    name: 'probe-port-number',
    expect: 'startup probe failed: 60 failures in a row',
    edit: (find) => {
      container(find('Deployment', 'flight-request-service')).startupProbe!.httpGet!.port = 8092;
    },
  },
  {
    name: 'liveness-path',
    expect: 'liveness probe',
    edit: (find) => {
      container(find('Deployment', 'webhook-service')).livenessProbe!.httpGet!.path = '/healthz/nope';
    },
  },
];

const [rendered, outDir] = process.argv.slice(2);
if (!rendered || !outDir) throw new Error('usage: breaks.ts RENDERED.yaml OUT_DIR');
const wanted = process.env['WORKLOADS_BREAKS']?.split(',');
for (const breakCase of CASES.filter((entry) => !wanted || wanted.includes(entry.name))) {
  const objects = loadManifests(rendered);
  breakCase.edit((kind, name) => {
    const object = objects.find((candidate) => candidate.kind === kind && candidate.metadata.name === name);
    if (!object) throw new Error(`${breakCase.name}: no ${kind}/${name} in ${rendered}`);
    return object;
  });
  writeFileSync(join(outDir, `${breakCase.name}.yaml`), objects.map((object) => stringify(object)).join('---\n'));
  console.log(`${breakCase.name}\t${breakCase.expect}`);
}
