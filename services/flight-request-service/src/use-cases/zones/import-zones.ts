import { randomUUID } from 'node:crypto';
import { ValidationError } from '@dfc/kit/errors';
import { isDuplicateKey } from '@dfc/kit/db';
import type { ZoneImportResult } from '@dfc/contracts';
import type { GeoZone } from '../../domain/zones/geo-zone.js';
import { parseZoneImport } from '../../domain/zones/parse-zone-import.js';
import { zoneChanged } from '../../domain/events/zone-events.js';
import type { UseCaseDeps } from '../deps.js';

/** Zones written at once during an import: enough to keep the database busy, few enough to leave room for requests. */
const CONCURRENT_WRITES = 8;

/**
 * POST /api/zones/import: every feature is checked first (one 422 lists every
 * failing feature, and nothing is written); then each zone is created, or
 * replaced (revived when it was deleted) by its id, with its own zone.changed
 * event, and this replica reloads its index before answering.
 */
export async function importZones(deps: UseCaseDeps, body: unknown, requestId?: string): Promise<ZoneImportResult> {
  const parsed = parseZoneImport(body);
  if (!parsed.ok) throw new ValidationError(parsed.errors);
  const zones = parsed.entries.flatMap((entry) => (entry.ok ? [{ ...entry.zone, id: entry.id ?? randomUUID() }] : []));
  let created = 0;
  for (let offset = 0; offset < zones.length; offset += CONCURRENT_WRITES) {
    const outcomes = await Promise.all(zones.slice(offset, offset + CONCURRENT_WRITES).map((zone) => upsert(deps, zone, requestId)));
    created += outcomes.filter((outcome) => outcome === 'created').length;
  }
  await deps.zoneSync.reloadAll();
  return { created, updated: zones.length - created, total: zones.length };
}

/** A new id is created; a known one replaced, and a deleted one revived (which counts as created). */
async function upsert(deps: UseCaseDeps, zone: GeoZone, requestId?: string): Promise<'created' | 'updated'> {
  try {
    await deps.zones.insert(zone, deps.now(), [zoneChanged(zone.id, 'created', requestId)]);
    return 'created';
  } catch (error) {
    if (!isDuplicateKey(error)) throw error;
  }
  let revived = false;
  await deps.zones.change(zone.id, (current) => {
    revived = current.deleted_at !== null;
    const { id: _id, ...fields } = zone;
    return { set: { ...fields, deleted_at: null, updated_at: deps.now() }, events: [zoneChanged(zone.id, revived ? 'created' : 'updated', requestId)] };
  });
  return revived ? 'created' : 'updated';
}
