import { randomUUID } from 'node:crypto';
import { skipFor, type PageRequest } from '@dfc/kit/pagination';
import { bbox } from '@turf/bbox';
import { ForbiddenError, NotFoundError, ValidationError } from '@dfc/kit/errors';
import { boundsRing, type ZoneListQuery } from '@dfc/contracts';
import { areasIntersect, type AreaPolygon, type BBox } from '../../domain/geometry/flight-area.js';
import { activeDuring } from '../../domain/zones/applicability.js';
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

/** Live zones for everyone; admins also read retired ones. */
export async function getZone(deps: UseCaseDeps, id: string, admin: boolean): Promise<ZoneDoc> {
  const doc = admin ? await deps.zones.findAny(id) : await deps.zones.findLive(id);
  if (!doc) throw new NotFoundError();
  return doc;
}

/** Admins: every version of a zone, oldest first, retired ones too. */
export async function zoneVersions(deps: UseCaseDeps, id: string): Promise<ZoneDoc[]> {
  const versions = await deps.zones.versions(id);
  if (!versions) throw new NotFoundError();
  return versions;
}

/** The longest window a listing computes active intervals for. */
export const MAX_LIST_WINDOW_DAYS = 31;

export interface ZoneListing {
  items: ZoneDoc[];
  total: number;
  page: PageRequest;
  /** The asked window, in which each zone's active intervals are shown; null without one. */
  window: { from: number; to: number } | null;
}

/**
 * GET /api/zones. Published zones come from the spatial index (the same zones
 * screening reads) when an area or a window is asked, or for a caller who is
 * not an admin: ordered by id, those active in the window only. An admin's
 * plain list, and retired zones (admins only), are read from the database.
 */
export async function listZones(deps: UseCaseDeps, query: ZoneListQuery, admin: boolean): Promise<ZoneListing> {
  const page = { page: query.page, per_page: query.per_page };
  const window = windowOf(query);
  const box = boxOf(query.bbox);
  if (query.status === 'retired') {
    if (!admin) throw new ForbiddenError();
    const { items, total } = await deps.zones.retiredPage(skipFor(page), page.per_page);
    return { items, total, page, window };
  }
  if (admin && box === null && window === null) {
    const filter = { ...(query.type ? { type: query.type } : {}), ...(query.restriction ? { restriction: query.restriction } : {}) };
    const { items, total } = await deps.zones.page(filter, skipFor(page), page.per_page);
    return { items, total, page, window };
  }
  // The same map the next screening would use: caught up with every zone change that has ended.
  await deps.zoneSync.current();
  const candidates = deps.zoneIndex
    .search(box ?? [-180, -90, 180, 90])
    .filter(
      (zone) =>
        (!query.type || zone.type === query.type) &&
        (!query.restriction || zone.restriction === query.restriction) &&
        (box === null || areasIntersect([boxArea(box)], [{ type: 'Feature', properties: {}, geometry: zone.geometry }])) &&
        (window === null || activeDuring(zone.applicability, centreOf(zone), window.from, window.to)),
    );
  const ids = candidates.slice(skipFor(page), skipFor(page) + page.per_page).map((zone) => zone.id);
  const docs = await Promise.all(ids.map((id) => deps.zones.findLive(id)));
  return { items: docs.filter((doc): doc is ZoneDoc => doc !== null), total: candidates.length, page, window };
}

/** The asked [from, to), refused when one is missing, unreadable, reversed or too long. */
export function windowOf(query: Pick<ZoneListQuery, 'from' | 'to'>): { from: number; to: number } | null {
  if (query.from === undefined && query.to === undefined) return null;
  if (query.from === undefined || query.to === undefined) {
    const missing = query.from === undefined ? 'from' : 'to';
    throw new ValidationError({ [missing]: [`The ${missing} field is required when ${missing === 'from' ? 'to' : 'from'} is present.`] });
  }
  const from = Date.parse(query.from);
  const to = Date.parse(query.to);
  if (Number.isNaN(from)) throw new ValidationError({ from: ['The from field must be a date-time that names a real instant.'] });
  if (Number.isNaN(to)) throw new ValidationError({ to: ['The to field must be a date-time that names a real instant.'] });
  if (to <= from) throw new ValidationError({ to: ['The to field must be a date after from.'] });
  if (to - from > MAX_LIST_WINDOW_DAYS * 86_400_000)
    throw new ValidationError({ to: [`The to field must be at most ${MAX_LIST_WINDOW_DAYS} days after from.`] });
  return { from, to };
}

function boxOf(bbox: string | undefined): BBox | null {
  if (bbox === undefined) return null;
  const [west, south, east, north] = bbox.split(',').map(Number) as [number, number, number, number];
  const valid = west >= -180 && east <= 180 && south >= -90 && north <= 90 && west < east && south < north;
  if (!valid) throw new ValidationError({ bbox: ['The bbox field must be minLon,minLat,maxLon,maxLat within ±180, ±90, each min below its max.'] });
  return [west, south, east, north];
}

function boxArea(box: BBox): AreaPolygon {
  return { type: 'Feature', properties: {}, geometry: { type: 'Polygon', coordinates: [boundsRing(box)] } };
}

/** Where daylight events are computed for a zone: the middle of its bounding box. */
export function centreOf(zone: GeoZone): [number, number] {
  const [west = 0, south = 0, east = 0, north = 0] = bbox(zone.geometry);
  return [(west + east) / 2, (south + north) / 2];
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

/** This replica brings its index up to date before answering; the new epoch has every other replica's next screening catch up. */
async function refreshIndex(deps: UseCaseDeps, zoneId: string): Promise<void> {
  await deps.zoneSync.wrote(zoneId);
}
