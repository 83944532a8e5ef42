import { randomUUID } from 'node:crypto';
import { ValidationError } from '@dfc/kit';
import type { ZoneImportResult } from '@dfc/contracts';
import { parseZoneImport } from '../../domain/zones/parse-zone-import.js';
import { zoneChanged } from '../../events/zone-events.js';
import type { UseCaseDeps } from '../deps.js';

/**
 * POST /api/zones/import: every feature is checked first (one 422 lists every
 * failing feature, and nothing is written); then the zones are upserted by id
 * in one bulk write. Their zone.changed events go out through the relay's
 * sweep rather than one fast-path publish per zone, and this replica reloads
 * its index before answering.
 */
export async function importZones(deps: UseCaseDeps, body: unknown, requestId?: string): Promise<ZoneImportResult> {
  const parsed = parseZoneImport(body);
  if (!parsed.ok) throw new ValidationError(parsed.errors);
  const zones = parsed.entries.flatMap((entry) => {
    if (!entry.ok) return [];
    const zone = { ...entry.zone, id: entry.id ?? randomUUID() };
    return [{ zone, event: zoneChanged(zone.id, 'updated', requestId) }];
  });
  const { created, updated } = await deps.zones.upsertMany(zones, deps.now());
  await deps.zoneSync.reloadAll();
  return { created, updated, total: zones.length };
}
