import { randomUUID } from 'node:crypto';
import { NotFoundError, ValidationError } from '@dfc/kit/errors';
import { skipFor, type PageRequest } from '@dfc/kit/http';
import type { ZoneListQuery } from '@dfc/contracts';
import { checkZoneInput } from '../../domain/zones/check-zone-input.js';
import type { GeoZone } from '../../domain/zones/geo-zone.js';
import { zoneChanged } from '../../events/zone-events.js';
import type { ZoneDoc } from '../../store/zone-store.js';
import { publishSoon, type UseCaseDeps } from '../deps.js';

/** POST /api/zones: a checked zone under a new id; the index here is refreshed before answering. */
export async function createZone(deps: UseCaseDeps, body: unknown, requestId?: string): Promise<ZoneDoc> {
  const zone: GeoZone = { id: randomUUID(), ...checked(body) };
  const { doc, changeId } = await deps.zones.create(zone, zoneChanged(zone.id, 'created', requestId), deps.now());
  await afterZoneWrite(deps, zone.id, changeId);
  return doc;
}

/** PUT /api/zones/{id}: replaces every field of a live zone. */
export async function replaceZone(deps: UseCaseDeps, id: string, body: unknown, requestId?: string): Promise<ZoneDoc> {
  await getZone(deps, id);
  const zone: GeoZone = { id, ...checked(body) };
  const replaced = await deps.zones.replace(zone, zoneChanged(id, 'updated', requestId), deps.now());
  if (!replaced) throw new NotFoundError();
  await afterZoneWrite(deps, id, replaced.changeId);
  return replaced.doc;
}

/** DELETE /api/zones/{id}: the zone stops applying at once; its document stays until the event is out. */
export async function deleteZone(deps: UseCaseDeps, id: string, requestId?: string): Promise<void> {
  const changeId = await deps.zones.softDelete(id, zoneChanged(id, 'deleted', requestId), deps.now());
  if (changeId === null) throw new NotFoundError();
  await afterZoneWrite(deps, id, changeId);
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

function checked(body: unknown): Omit<GeoZone, 'id'> {
  const check = checkZoneInput(body);
  if (!check.ok) throw new ValidationError(check.errors);
  return check.zone;
}

/** Publish the zone.changed event (other replicas) and bring this replica's index up to date now. */
async function afterZoneWrite(deps: UseCaseDeps, zoneId: string, changeId: unknown): Promise<void> {
  publishSoon(deps, deps.zones.outboxModel, changeId);
  deps.zoneSync.changed(zoneId);
  await deps.zoneSync.flush();
}
