import type { GeoZoneRecord } from '@dfc/contracts';
import { query } from '../api';
import { when } from '../ui/format';
import type { LayerKind, MapLayer } from './layers';

/** `[west, south, east, north]` in degrees. */
export type BBox = [number, number, number, number];

export interface ZoneWindow {
  from: string;
  to: string;
}

type VerticalLimit = GeoZoneRecord['volumes'][number]['lower'];

const DAY_MS = 86_400_000;
/** The longest window `GET /api/zones` answers; a longer flight is asked about from its start. */
const LONGEST_WINDOW_MS = 31 * DAY_MS;
/** The most zones one page of `GET /api/zones` holds. */
export const ZONES_PER_PAGE = 100;
const METRES_PER_DEGREE = 111_320;

const KIND_OF_RESTRICTION: Record<GeoZoneRecord['restriction'], LayerKind> = {
  PROHIBITED: 'zone-prohibited',
  REQ_AUTHORISATION: 'zone-authorisation',
  CONDITIONAL: 'zone-conditional',
  NO_RESTRICTION: 'zone-info',
  USPACE: 'zone-info',
};

const numbers = new Intl.NumberFormat('en-GB', { maximumFractionDigits: 1 });

/** A limit as the authority published it: `3,000 ft AMSL`, `0 m AGL`, `150 m WGS84`. */
export function limitText(limit: VerticalLimit): string {
  return `${numbers.format(limit.value)} ${limit.uom} ${limit.reference}`;
}

/** Each volume's band, lower to upper, as published: `0 m AGL – 3,000 ft AMSL`. */
export function bandsText(zone: Pick<GeoZoneRecord, 'volumes'>): string {
  return zone.volumes.map((volume) => `${limitText(volume.lower)} – ${limitText(volume.upper)}`).join('; ');
}

/** When the zone applies: always, its active intervals in the asked window, or by its schedule when no window was asked. */
export function activityText(zone: Pick<GeoZoneRecord, 'applicability' | 'active_intervals'>): string {
  if (zone.applicability.permanent) return 'Permanent';
  const intervals = zone.active_intervals;
  if (intervals === undefined) return 'Active by its schedule';
  if (intervals.length === 0) return 'Not active in this window';
  const shown = intervals.slice(0, 3).map((interval) => `${when(interval.start)} – ${when(interval.end)}`);
  const more = intervals.length - shown.length;
  return `Active ${shown.join(', ')}${more > 0 ? ` and ${more} more time(s)` : ''}`;
}

/** Who to ask about the zone: its first published authority's name and contacts, or the reviewing authority. */
export function contactText(zone: Pick<GeoZoneRecord, 'authority' | 'published'>): string {
  const published = zone.published?.authorities[0];
  if (published === undefined) return zone.authority;
  const parts = [published.name ?? zone.authority, published.contact_name, published.email, published.phone, published.site_url];
  return parts.filter((part): part is string => part !== null && part !== '').join(' · ');
}

/** The zone's tooltip on the map: name, restriction, bands and message. */
export function zoneLabel(zone: GeoZoneRecord, raised = false): string {
  const parts = [zone.name, zone.restriction, bandsText(zone), zone.message ?? ''];
  return `${raised ? 'Raised this review: ' : ''}${parts.filter((part) => part !== '').join(' · ')}`;
}

/**
 * The zones as map layers, coloured by restriction; those that raised a review item (`raised`, by id)
 * stand out and are drawn last, on top. A zone of several volumes with their own areas is one layer
 * per volume, each labelled with its band.
 */
export function zoneLayers(zones: GeoZoneRecord[], raised: ReadonlySet<string> = new Set()): MapLayer[] {
  const ordered = [...zones.filter((zone) => !raised.has(zone.id)), ...zones.filter((zone) => raised.has(zone.id))];
  return ordered.flatMap((zone) => {
    const isRaised = raised.has(zone.id);
    const kind = isRaised ? 'zone-raised' : KIND_OF_RESTRICTION[zone.restriction];
    const ownAreas = zone.volumes.length > 1 && zone.volumes.every((volume) => volume.geometry !== undefined);
    if (!ownAreas) return [{ id: `zone-${zone.id}`, kind, data: zone.geometry, label: zoneLabel(zone, isRaised) }];
    return zone.volumes.map((volume, index) => ({
      id: `zone-${zone.id}-${index}`,
      kind,
      data: volume.geometry ?? zone.geometry,
      label: zoneLabel({ ...zone, volumes: [volume] }, isRaised),
    }));
  });
}

/** `GET /api/zones` for a box and, when known, a time window: the zones there (active then), a full page. */
export function zonesPath(box: BBox, window: ZoneWindow | null): string {
  const [west, south, east, north] = clamped(box);
  return `/api/zones${query({
    bbox: [west, south, east, north].map((value) => value.toFixed(5)).join(','),
    from: window?.from,
    to: window?.to,
    per_page: ZONES_PER_PAGE,
  })}`;
}

/** The window to ask zones about for a flight from `start` to `end` (ISO), or null when they do not make one. */
export function zoneWindow(start: string, end: string): ZoneWindow | null {
  const from = Date.parse(start);
  const to = Date.parse(end);
  if (Number.isNaN(from) || Number.isNaN(to) || to <= from) return null;
  return { from: new Date(from).toISOString(), to: new Date(Math.min(to, from + LONGEST_WINDOW_MS)).toISOString() };
}

/** The box grown by `metres` on every side: the zones just outside an area matter to whoever flies it. */
export function padded([west, south, east, north]: BBox, metres: number): BBox {
  const latitude = Math.min(Math.abs((south + north) / 2), 89);
  const dLat = metres / METRES_PER_DEGREE;
  const dLon = metres / (METRES_PER_DEGREE * Math.cos((latitude * Math.PI) / 180));
  return clamped([west - dLon, south - dLat, east + dLon, north + dLat]);
}

/** Within ±180, ±90, each minimum below its maximum (what the API's bbox accepts), whatever a map view spans. */
function clamped([west, south, east, north]: BBox): BBox {
  const [low, high] = span(west, east, 180);
  const [bottom, top] = span(south, north, 90);
  return [low, bottom, high, top];
}

/** The narrowest span kept: still two distinct values at the five decimals the path is written with. */
const NARROWEST = 1e-4;

function span(from: number, to: number, limit: number): [number, number] {
  const low = Math.max(-limit, Math.min(from, to));
  const high = Math.min(limit, Math.max(from, to));
  if (high - low >= NARROWEST) return [low, high];
  return low + NARROWEST <= limit ? [low, low + NARROWEST] : [high - NARROWEST, high];
}
