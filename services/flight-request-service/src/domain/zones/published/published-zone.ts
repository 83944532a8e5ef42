import { ZONE_LIMIT_MAX_M, ZONE_TYPES, type ZoneRestriction } from '@dfc/contracts';
import type { MultiPolygon, Position } from 'geojson';
import { circlePolygon, CIRCLE_STEPS } from '../../geometry/circle-area.js';
import { attribute } from '../../geometry/field-errors.js';
import { checkZoneGeometry } from '../../geometry/flight-area.js';
import type { Polygonal } from '../../geometry/polygonal.js';
import type { Applicability, GeoZoneDraft, PublishedZone, TimePeriod, VerticalLimit, ZoneVolume } from '../geo-zone.js';
import { inMetres } from '../vertical.js';
import { preferredText, type ZoneReader } from './reader.js';

/*
 * What ED-269 and ED-318 zones have in common once read: the published type
 * mapped onto the restriction screening applies, the reviewing authority taken
 * from `zoneAuthority`, the volumes' areas joined for the spatial index.
 */

/** ED-269 spells it REQ_AUTHORISATION, ED-318 REQ_AUTHORIZATION; both mean the same restriction. */
export const PUBLISHED_TYPES = ['USPACE', 'PROHIBITED', 'REQ_AUTHORISATION', 'REQ_AUTHORIZATION', 'CONDITIONAL', 'NO_RESTRICTION'] as const;
export const REASONS = [
  'AIR_TRAFFIC',
  'SENSITIVE',
  'PRIVACY',
  'POPULATION',
  'NATURE',
  'NOISE',
  'FOREIGN_TERRITORY',
  'EMERGENCY',
  'DAR',
  'OTHER',
] as const;
export const AUTHORITY_PURPOSES = ['AUTHORIZATION', 'NOTIFICATION', 'INFORMATION'] as const;
export const VERTICAL_REFERENCES = ['AGL', 'AMSL', 'WGS84'] as const;

export function restrictionOf(publishedType: (typeof PUBLISHED_TYPES)[number]): ZoneRestriction {
  return publishedType === 'REQ_AUTHORIZATION' ? 'REQ_AUTHORISATION' : publishedType;
}

export interface PublishedParts {
  identifier: string;
  country: string;
  published: PublishedZone;
  volumes: ZoneVolume[];
  applicability: Applicability;
  datasetId: string;
}

/**
 * The zone screening works with. The reviewing authority is the name of the
 * first `zoneAuthority` whose purpose is AUTHORIZATION (else the first one):
 * reviewer keys are issued for that name.
 */
export function draftOfPublished(parts: PublishedParts, reader: ZoneReader, authorityPath: string): GeoZoneDraft | null {
  const { published, volumes } = parts;
  const local = projectProperties(published.extended_properties, reader, reader.path('extendedProperties'));
  if (local === null) return null;
  const deciding = published.authorities.find((authority) => authority.purpose === 'AUTHORIZATION') ?? published.authorities[0];
  const authority = deciding ? preferredText(deciding.name) : null;
  if (authority === null) {
    reader.fail(authorityPath, 'must name at least one authority (zoneAuthority with a name): reviews go to it.');
    return null;
  }
  if (authority.length > 100) {
    reader.fail(authorityPath, 'names an authority longer than 100 characters.');
    return null;
  }
  return {
    name: preferredText(published.names) ?? parts.identifier,
    type: local.type,
    restriction: restrictionOf(published.published_type as (typeof PUBLISHED_TYPES)[number]),
    lower_limit_m: Math.max(0, Math.floor(Math.min(...volumes.map((volume) => inMetres(volume.lower))))),
    upper_limit_m: Math.min(ZONE_LIMIT_MAX_M, Math.ceil(Math.max(...volumes.map((volume) => inMetres(volume.upper))))),
    schedule: null,
    authority,
    ctr_exemption_ceiling_m: local.ceiling,
    geometry: joined(volumes.map((volume) => volume.geometry)),
    identifier: parts.identifier,
    country: parts.country,
    volumes,
    applicability: parts.applicability,
    published,
    dataset_id: parts.datasetId,
  };
}

/**
 * The two things this service needs that neither format says, read from
 * `extendedProperties` (the formats' place for a provider's own data) when a
 * provider gives them: `dfcZoneType` (CTR, AIRPORT, … as in the own format;
 * OTHER without it) and, for a CTR, `dfcCtrExemptionCeilingM`, the height up
 * to which operators holding a CTR exemption fly without review.
 */
function projectProperties(
  extended: Record<string, unknown> | null,
  reader: ZoneReader,
  path: string,
): { type: string; ceiling: number | null } | null {
  const type = extended?.['dfcZoneType'] ?? 'OTHER';
  const ceiling = extended?.['dfcCtrExemptionCeilingM'] ?? null;
  const knownType = reader.oneOf(type, reader.pathIn(path, 'dfcZoneType'), ZONE_TYPES);
  if (knownType === null) return null;
  if (ceiling === null) return { type: knownType, ceiling: null };
  if (knownType !== 'CTR' || !Number.isInteger(ceiling) || (ceiling as number) < 0 || (ceiling as number) > ZONE_LIMIT_MAX_M) {
    reader.fail(
      reader.pathIn(path, 'dfcCtrExemptionCeilingM'),
      `must be whole metres from 0 to ${ZONE_LIMIT_MAX_M}, and only on a zone whose dfcZoneType is CTR.`,
    );
    return null;
  }
  return { type: knownType, ceiling: ceiling as number };
}

function joined(areas: Polygonal[]): Polygonal {
  if (areas.length === 1) return areas[0] as Polygonal;
  const coordinates = areas.flatMap((area) => (area.type === 'Polygon' ? [area.coordinates] : area.coordinates));
  return { type: 'MultiPolygon', coordinates } satisfies MultiPolygon;
}

/** A Polygon or MultiPolygon, checked by the same rules as every zone's (closed rings, no crossing edges). */
export function readArea(input: unknown, path: string, reader: ZoneReader): Polygonal | null {
  const checked = checkZoneGeometry(input, path);
  if (checked.ok) return checked.geometry;
  for (const [field, messages] of Object.entries(checked.errors)) {
    for (const message of messages) reader.errors.add(field, withZone(message, reader.identifier, field));
  }
  return null;
}

/**
 * A circle as a polygon around it: the polygon's edges lie outside the circle
 * (the radius is stretched by 1/cos(π/n)), so it covers at least the published area.
 */
/** A circle of `radius` in `unit` (ED-269's `uomDimensions` covers horizontal dimensions too; ED-318's radius is in metres). */
export function readCircle(center: unknown, radius: unknown, path: string, reader: ZoneReader, unit: 'm' | 'ft' = 'm'): Polygonal | null {
  const published = reader.number(radius, reader.pathIn(path, 'radius'));
  const radiusM = published === null ? null : inMetres({ value: published, uom: unit });
  const position =
    Array.isArray(center) && center.length >= 2 && center.slice(0, 2).every((value) => typeof value === 'number' && Number.isFinite(value))
      ? (center as Position)
      : null;
  if (!position || Math.abs(position[0] as number) > 180 || Math.abs(position[1] as number) > 90) {
    reader.fail(reader.pathIn(path, 'center'), 'must be a [longitude, latitude] position.');
    return null;
  }
  if (radiusM === null) return null;
  if (!(radiusM > 0 && radiusM <= 1_000_000)) {
    reader.fail(reader.pathIn(path, 'radius'), 'must be greater than 0 and at most 1,000,000 m.');
    return null;
  }
  const polygon = circlePolygon(position, radiusM / Math.cos(Math.PI / CIRCLE_STEPS));
  if (!polygon) reader.fail(path, 'is a circle that crosses a pole or the antimeridian; publish it as polygons.');
  return polygon;
}

export function limitOf(value: number | null, reference: VerticalLimit['reference'], uom: VerticalLimit['uom']): VerticalLimit {
  return value === null ? { value: ZONE_LIMIT_MAX_M, reference, uom: 'm' } : { value, reference, uom };
}

/** lower < upper where both have the same reference (across references the terrain decides, at screening). */
export function checkBand(volume: Pick<ZoneVolume, 'lower' | 'upper'>, upperPath: string, reader: ZoneReader): boolean {
  if (volume.lower.reference !== volume.upper.reference) return true;
  if (inMetres(volume.upper) > inMetres(volume.lower)) return true;
  reader.fail(upperPath, 'must be above the lower limit.');
  return false;
}

/** The geometry rules' message with the zone named right after its path. */
function withZone(message: string, identifier: string | null, field: string): string {
  if (identifier === null) return message;
  const named = attribute(field);
  return message.includes(named) ? message.replace(named, `${named} (zone ${identifier})`) : `${message} (zone ${identifier})`;
}

/** A dataset valid only from/to bounds every zone it carries. */
export function withinValidity(applicability: Applicability, from: string | null, to: string | null): Applicability {
  if (from === null && to === null) return applicability;
  const periods: TimePeriod[] = applicability.permanent ? [{ start: null, end: null, daily: [] }] : applicability.periods;
  return {
    permanent: false,
    periods: periods.map((period) => ({
      ...period,
      start: later(period.start, from),
      end: earlier(period.end, to),
    })),
  };
}

function later(a: string | null, b: string | null): string | null {
  if (a === null) return b;
  if (b === null) return a;
  return Date.parse(a) >= Date.parse(b) ? a : b;
}

function earlier(a: string | null, b: string | null): string | null {
  if (a === null) return b;
  if (b === null) return a;
  return Date.parse(a) <= Date.parse(b) ? a : b;
}
