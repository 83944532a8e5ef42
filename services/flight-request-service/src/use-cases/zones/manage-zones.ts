import { randomUUID } from 'node:crypto';
import { skipFor, type PageRequest } from '@dfc/kit/pagination';
import { NotFoundError, ValidationError } from '@dfc/kit/errors';
import type { ZoneListQuery } from '@dfc/contracts';
import { checkZoneInput } from '../../domain/zones/check-zone-input.js';
import type { GeoZone, GeoZoneDraft } from '../../domain/zones/geo-zone.js';
import { zoneChanged } from '../../domain/events/zone-events.js';
import type { ZoneDoc } from '../../store/zone-store.js';
import type { UseCaseDeps } from '../deps.js';

/** POST /api/zones: a checked zone under a new id; the index here is refreshed before answering. */
export async function createZone(deps: UseCaseDeps, body: unknown, requestId?: string): Promise<ZoneDoc> {
  const zone: GeoZone = { id: randomUUID(), ...checked(body) };
  const created = await deps.zones.insert(zone, deps.now(), [zoneChanged(zone.id, 'created', requestId)]);
  await refreshIndex(deps, zone.id);
  return created;
}

/** PUT /api/zones/{id}: replaces every field of a live zone. */
export async function replaceZone(deps: UseCaseDeps, id: string, body: unknown, requestId?: string): Promise<ZoneDoc> {
  const replaced = await deps.zones.change(id, (current) => {
    live(current);
    return { set: { ...checked(body), updated_at: deps.now() }, events: [zoneChanged(id, 'updated', requestId)] };
  });
  await refreshIndex(deps, id);
  return replaced;
}

/** DELETE /api/zones/{id}: the zone is marked deleted and stops applying at once; a re-import of its id revives it. */
export async function deleteZone(deps: UseCaseDeps, id: string, requestId?: string): Promise<void> {
  await deps.zones.change(id, (current) => {
    live(current);
    const now = deps.now();
    return { set: { deleted_at: now, updated_at: now }, events: [zoneChanged(id, 'deleted', requestId)] };
  });
  await refreshIndex(deps, id);
}

export async function getZone(deps: UseCaseDeps, id: string): Promise<ZoneDoc> {
  const doc = await deps.zones.findLive(id);
  if (!doc) throw new NotFoundError();
  return doc;
}

export async function listZones(
  deps: UseCaseDeps,
  query: ZoneListQuery,
): Promise<{ items: ZoneDoc[]; total: number; page: PageRequest }> {
  const page = { page: query.page, per_page: query.per_page };
  const filter = { ...(query.type ? { type: query.type } : {}), ...(query.restriction ? { restriction: query.restriction } : {}) };
  const { items, total } = await deps.zones.page(filter, skipFor(page), page.per_page);
  return { items, total, page };
}

function checked(body: unknown): GeoZoneDraft {
  const check = checkZoneInput(body);
  if (!check.ok) throw new ValidationError(check.errors);
  return check.zone;
}

/** A deleted zone is gone for every route but the import. */
function live(zone: ZoneDoc): void {
  if (zone.deleted_at !== null) throw new NotFoundError();
}

/** Other replicas follow the zone.changed event; this one brings its index up to date before answering. */
async function refreshIndex(deps: UseCaseDeps, zoneId: string): Promise<void> {
  deps.zoneSync.changed(zoneId);
  await deps.zoneSync.flush();
}
