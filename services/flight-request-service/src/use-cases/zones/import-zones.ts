import { createHash, randomUUID } from 'node:crypto';
import canonicalize from 'canonicalize';
import { ValidationError } from '@dfc/kit/errors';
import type { ZoneImportResult } from '@dfc/contracts';
import type { GeoZone, GeoZoneDraft } from '../../domain/zones/geo-zone.js';
import { parseZoneImport } from '../../domain/zones/parse-zone-import.js';
import type { DatasetIssue } from '../../domain/zones/published/dataset.js';
import { zoneChanged } from '../../domain/events/zone-events.js';
import type { UseCaseDeps } from '../deps.js';

/** Zones written at once during an import: enough to keep the database busy, few enough to leave room for requests. */
const CONCURRENT_WRITES = 8;
/**
 * New zones go in one insert command per batch: a national dataset of thousands is inserted in seconds, not one
 * by one. A batch counts each zone's areas twice (its geometry and its volumes) and stays small next to the 16 MiB
 * a command may carry: the driver's BSON serializer writes every command into one buffer sized for the largest
 * allowed, whose pages stay resident up to the largest command the process ever sent.
 */
const INSERT_BATCH = 250;
const INSERT_BATCH_CHARS = 1024 * 1024;

/**
 * POST /api/zones/import: every zone is checked first (one 422 lists every
 * failing zone, and nothing is written); then each zone is created, or
 * replaced (revived when it was deleted) by its id, with its own zone.changed
 * event, which rescreens the live requests it meets; this replica puts what it
 * wrote into its index before answering.
 *
 * An ED-269 / ED-318 document is an issue of its dataset: the same issue again
 * changes nothing; an older one is refused; a newer one rewrites only the
 * zones it changed and retires those it no longer lists.
 */
export async function importZones(deps: UseCaseDeps, body: unknown, requestId?: string): Promise<ZoneImportResult> {
  const parsed = parseZoneImport(body);
  if (!parsed.ok) throw new ValidationError(parsed.errors);
  const zones = parsed.entries.flatMap((entry) => (entry.ok ? [{ ...entry.zone, id: entry.id ?? randomUUID() }] : []));
  if (parsed.dataset) return importIssue(deps, parsed.dataset, zones, requestId);
  const created = await writeAll(
    deps,
    zones.map((zone) => ({ zone, digest: null })),
    requestId,
  );
  await deps.zoneSync.applied(zones, []);
  return { format: parsed.format, dataset: null, created, updated: zones.length - created, unchanged: 0, retired: 0, total: zones.length };
}

async function importIssue(deps: UseCaseDeps, issue: DatasetIssue, zones: GeoZone[], requestId?: string): Promise<ZoneImportResult> {
  const digests = new Map(zones.map((zone) => [zone.id, digestOf(zone)]));
  const issueDigest = digestOf({ issue, zones: [...digests.entries()] });
  const summary = { format: issue.format, dataset: datasetRecord(issue), total: zones.length };
  const current = await deps.datasets.find(issue.id);
  if (current && current.digest === issueDigest) {
    return { ...summary, created: 0, updated: 0, unchanged: zones.length, retired: 0, dataset: { ...summary.dataset, already_imported: true } };
  }
  refuseOlder(issue, current?.issued ?? null);

  const known = new Map((await deps.zones.ofDataset(issue.id)).map((zone) => [zone.id, zone]));
  const changed = zones.filter((zone) => {
    const stored = known.get(zone.id);
    return !stored || stored.retired || stored.digest !== digests.get(zone.id);
  });
  const listed = new Set(zones.map((zone) => zone.id));
  const absent = [...known.values()].filter((zone) => !zone.retired && !listed.has(zone.id)).map((zone) => zone.id);

  const created = await writeAll(
    deps,
    changed.map((zone) => ({ zone, digest: digests.get(zone.id) ?? null })),
    requestId,
  );
  for (let offset = 0; offset < absent.length; offset += CONCURRENT_WRITES) {
    await Promise.all(absent.slice(offset, offset + CONCURRENT_WRITES).map((id) => retire(deps, id, requestId)));
  }
  await deps.datasets.save(issue, issueDigest, [...listed], deps.now());
  await deps.zoneSync.applied(changed, absent);
  return {
    ...summary,
    created,
    updated: changed.length - created,
    unchanged: zones.length - changed.length,
    retired: absent.length,
  };
}

/** An issue older than the one in force would roll the airspace back: refused, naming both. */
function refuseOlder(issue: DatasetIssue, currentIssued: string | null): void {
  if (issue.issued === null || currentIssued === null) return;
  if (Date.parse(issue.issued) >= Date.parse(currentIssued)) return;
  const path = issue.format === 'ED-318' ? 'metadata.issued' : 'createdAt';
  throw new ValidationError({
    [path]: [`The ${path} field (${issue.issued}) is older than the issue of ${issue.id} in force (${currentIssued}): import a newer issue.`],
  });
}

function datasetRecord(issue: DatasetIssue): NonNullable<ZoneImportResult['dataset']> {
  return { id: issue.id, issued: issue.issued, valid_from: issue.valid_from, valid_to: issue.valid_to, already_imported: false };
}

/** Inserts the new zones in batches, then replaces (or revives) those whose id existed, a few at a time. */
async function writeAll(deps: UseCaseDeps, zones: Array<{ zone: GeoZone; digest: string | null }>, requestId?: string): Promise<number> {
  let created = 0;
  const existing: Array<{ zone: GeoZone; digest: string | null }> = [];
  for (const batch of batches(zones)) {
    const entries = batch.map(({ zone, digest }) => ({ zone, events: [zoneChanged(zone.id, 'created', requestId)], contentDigest: digest }));
    const inserted = await deps.zones.insertNew(entries, deps.now());
    created += inserted.size;
    existing.push(...batch.filter(({ zone }) => !inserted.has(zone.id)));
  }
  for (let offset = 0; offset < existing.length; offset += CONCURRENT_WRITES) {
    const outcomes = await Promise.all(
      existing.slice(offset, offset + CONCURRENT_WRITES).map(({ zone, digest }) => replace(deps, zone, digest, requestId)),
    );
    created += outcomes.filter((outcome) => outcome === 'created').length;
  }
  return created;
}

function* batches<T extends { zone: GeoZone }>(zones: T[]): Generator<T[]> {
  let batch: T[] = [];
  let chars = 0;
  for (const entry of zones) {
    const size = 2 * JSON.stringify(entry.zone.geometry).length;
    if (batch.length > 0 && (batch.length >= INSERT_BATCH || chars + size > INSERT_BATCH_CHARS)) {
      yield batch;
      batch = [];
      chars = 0;
    }
    batch.push(entry);
    chars += size;
  }
  if (batch.length > 0) yield batch;
}

/** A known id is replaced, and a deleted one revived (which counts as created). */
async function replace(deps: UseCaseDeps, zone: GeoZone, digest: string | null, requestId?: string): Promise<'created' | 'updated'> {
  let revived = false;
  await deps.zones.change(zone.id, (current) => {
    revived = current.deleted_at !== null;
    const { id: _id, ...fields } = zone;
    return {
      set: { ...fields, content_digest: digest, deleted_at: null, updated_at: deps.now() },
      events: [zoneChanged(zone.id, revived ? 'created' : 'updated', requestId)],
    };
  });
  return revived ? 'created' : 'updated';
}

/** A zone a newer issue no longer lists: retired like a deleted one (kept, shown to admins, restricting nothing). */
async function retire(deps: UseCaseDeps, id: string, requestId?: string): Promise<void> {
  await deps.zones.change(id, (current) => {
    if (current.deleted_at !== null) return null;
    const now = deps.now();
    return { set: { deleted_at: now, updated_at: now }, events: [zoneChanged(id, 'deleted', requestId)] };
  });
}

function digestOf(value: GeoZoneDraft | object): string {
  return createHash('sha256')
    .update(canonicalize(value) ?? '')
    .digest('hex');
}
