import { randomUUID } from 'node:crypto';
import { ValidationError } from '@dfc/kit/errors';
import type { ZoneImportResult } from '@dfc/contracts';
import { parseZoneImport } from '../../domain/zones/parse-zone-import.js';
import { zoneChanged } from '../../events/zone-events.js';
import { publishSoon, type UseCaseDeps } from '../deps.js';

/**
 * POST /api/zones/import: every feature is checked first (one 422 lists every
 * failing feature, and nothing is written); then the zones are upserted by id,
 * one zone.changed event (zone_id null) makes every replica reload its index,
 * and this replica reloads before answering.
 */
export async function importZones(deps: UseCaseDeps, body: unknown, requestId?: string): Promise<ZoneImportResult> {
  const parsed = parseZoneImport(body);
  if (!parsed.ok) throw new ValidationError(parsed.errors);
  const zones = parsed.entries.flatMap((entry) => (entry.ok ? [{ ...entry.zone, id: entry.id ?? randomUUID() }] : []));
  const { created, updated, changeId } = await deps.zones.upsertMany(zones, zoneChanged(null, 'imported', requestId), deps.now());
  publishSoon(deps, deps.zones.outboxModel, changeId);
  await deps.zoneSync.reloadAll();
  return { created, updated, total: zones.length };
}
