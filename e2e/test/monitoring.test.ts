import { readFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect } from 'chai';
import { parseAllDocuments } from 'yaml';
import { startSystem, type ServiceName, type System } from '../src/system.js';

const MONITORING = resolve(dirname(fileURLToPath(import.meta.url)), '../../k8s/components/monitoring');
const SERVICES: ServiceName[] = ['gateway', 'operator-service', 'flight-request-service', 'webhook-service'];

/** Series other exporters provide (RabbitMQ's, kube-state-metrics, Prometheus itself), and PromQL's own words. */
const NOT_OURS = /^(rabbitmq_|kube_|container_|up$|ALERTS)/;
const PROMQL_WORDS = new Set(
  'sum max min avg count rate irate increase histogram_quantile absent absent_over_time max_over_time clamp_min clamp_max and or unless by without on ignoring group_left group_right bool offset vector scalar time abs topk bottomk label_replace'.split(
    ' ',
  ),
);

/** The series names a PromQL expression reads: selectors' names, without labels, groupings, strings, ranges or functions. */
function seriesIn(expr: string): string[] {
  const bare = expr
    .replace(/#[^\n]*/g, ' ')
    .replace(/"(?:[^"\\]|\\.)*"/g, ' ')
    .replace(/\{[^}]*\}/g, ' ')
    .replace(/\[[^\]]*\]/g, ' ')
    .replace(/\b(by|without|on|ignoring|group_left|group_right)\s*\([^)]*\)/g, ' ');
  return (bare.match(/[A-Za-z_:][A-Za-z0-9_:]*/g) ?? []).filter((name) => !PROMQL_WORDS.has(name) && !/^\d/.test(name));
}

/** Every `expr` of the dashboard's panels. */
function dashboardExpressions(): string[] {
  const dashboard = JSON.parse(readFileSync(resolve(MONITORING, 'dashboard.json'), 'utf8')) as {
    panels: Array<{ targets?: Array<{ expr: string }> }>;
  };
  return dashboard.panels.flatMap((panel) => (panel.targets ?? []).map((target) => target.expr));
}

/** The alert and recording rules: what each reads, and the names the recording rules define. */
function ruleExpressions(): { exprs: string[]; recorded: Set<string> } {
  const documents = parseAllDocuments(readFileSync(resolve(MONITORING, 'prometheus-rule.yaml'), 'utf8')).map((document) => document.toJS());
  const rules = documents
    .filter((document) => document?.kind === 'PrometheusRule')
    .flatMap((document) => document.spec.groups as Array<{ rules: Array<{ expr: string; record?: string }> }>)
    .flatMap((group) => group.rules);
  return { exprs: rules.map((rule) => rule.expr), recorded: new Set(rules.flatMap((rule) => (rule.record ? [rule.record] : []))) };
}

/** The series a service's /metrics declares (a histogram as its _bucket, _sum and _count). */
async function exportedBy(system: System, service: ServiceName): Promise<string[]> {
  const response = await fetch(system.metricsUrl(service));
  expect(response.status, `${service} /metrics`).to.equal(200);
  const text = await response.text();
  return [...text.matchAll(/^# TYPE (\S+) (\S+)$/gm)].flatMap(([, name, type]) =>
    type === 'histogram' || type === 'summary' ? [`${name}_bucket`, `${name}_sum`, `${name}_count`, name!] : [name!],
  );
}

describe('monitoring: the dashboard and the alert rules read what the services export', function () {
  this.timeout(120_000);
  let system: System;
  const exported = new Set<string>();

  before(async () => {
    system = await startSystem();
    for (const service of SERVICES) for (const name of await exportedBy(system, service)) exported.add(name);
  });

  after(async () => {
    await system?.stop();
  });

  /** The series of ours that `exprs` read and no service exports (a rule's recorded series count as exported). */
  function missingFrom(exprs: string[]): string[] {
    const { recorded } = ruleExpressions();
    const read = new Set(exprs.flatMap(seriesIn));
    expect(read.size).to.be.greaterThan(5);
    return [...read].filter((name) => !NOT_OURS.test(name) && !recorded.has(name) && !exported.has(name));
  }

  it('when every service is scraped, then each series of ours the dashboard queries exists', () => {
    expect(missingFrom(dashboardExpressions())).to.deep.equal([]);
  });

  it('when every service is scraped, then each series of ours the alert and recording rules read exists', () => {
    expect(missingFrom(ruleExpressions().exprs)).to.deep.equal([]);
  });
});
