import { mergeFieldErrors, type FieldErrors } from '@dfc/kit/errors';
import { VOLUME_LIMITS, type Altitude } from '@dfc/contracts';
import type { Feature } from 'geojson';
import { buildFeature } from '../geometry/feature-geometry.js';
import { readGeometryType } from '../geometry/features.js';
import { at, attribute, FieldErrorBag } from '../geometry/field-errors.js';
import type { AreaPolygon, CheckedFlightArea } from '../geometry/flight-area.js';
import { boundsOf } from '../geometry/intersect.js';
import { countPositions, isRecord, own } from '../geometry/structure.js';
import { summarise, totalArea } from '../geometry/summary.js';
import { heightAboveGround, metresOf } from '../volumes/band.js';
import type { StoredVolume } from '../volumes/flight-volume.js';
import type { VerticalModel } from '../zones/vertical.js';
import type { SubmissionLimits } from './limits.js';
import { checkTimeWindow, parseUtcInstant } from './time-window.js';

/*
 * The rules of `volumes` (README, "Volumes"): each volume's geometry as a
 * flight area's feature is checked, its window by the spec window's rules, its
 * band between two limits of one reference, lower below upper, never more than
 * the configured ceiling above the ground; together at most the flight area's
 * positions and area, and one window of the configured duration. The spec's
 * fields are then derived from them: sent as well, they must agree.
 */

/** Limits of a band not above ground: from below the lowest ground on Earth to far above any flight the service clears. */
const LOWEST_AMSL_M = -500;
const HIGHEST_AMSL_M = 10_000;

export interface CheckedVolumes {
  area: CheckedFlightArea;
  volumes: StoredVolume[];
  start: Date;
  end: Date;
  maxAltitudeM: number;
}

interface BuiltVolume {
  feature: Feature;
  polygon: AreaPolygon;
  start: Date;
  end: Date;
  lower: Altitude;
  upper: Altitude;
}

/**
 * `schemaErrors` are the schema's findings (dot paths): a part the schema
 * refused is not checked again. Errors are added to `errors`; the volumes come
 * back only when every rule holds.
 */
export function checkVolumes(
  input: Record<string, unknown>,
  schemaErrors: FieldErrors,
  limits: SubmissionLimits,
  now: Date,
  vertical: VerticalModel,
): { errors: FieldErrors; checked: CheckedVolumes | null } {
  // A last guard for what no check foresaw, as the flight area's: a 422, never a crash.
  try {
    return check(input, schemaErrors, limits, now, vertical);
  } catch {
    return { errors: { volumes: ['The volumes field is invalid.'] }, checked: null };
  }
}

function check(
  input: Record<string, unknown>,
  schemaErrors: FieldErrors,
  limits: SubmissionLimits,
  now: Date,
  vertical: VerticalModel,
): { errors: FieldErrors; checked: CheckedVolumes | null } {
  const bag = new FieldErrorBag();
  // The spec's fields are judged beside the volumes' own errors, reported with them.
  const specFields = new FieldErrorBag();
  const refusal = () => ({ errors: mergeFieldErrors(bag.toFieldErrors(), specFields.toFieldErrors()), checked: null });
  if (own(input, 'flight_area') !== undefined) {
    specFields.add('flight_area', "The flight area field is prohibited when volumes are sent: the volumes' areas form it.");
  }
  const list = own(input, 'volumes');
  if (!Array.isArray(list) || list.length === 0 || list.length > VOLUME_LIMITS.maxVolumes) return refusal();
  const refused = (path: string) => Object.keys(schemaErrors).some((field) => field === path || field.startsWith(`${path}.`));

  const positions = list.map((volume) => (isRecord(volume) ? positionsOf(own(volume, 'geometry')) : 0));
  const total = positions.reduce((sum, count) => sum + count, 0);
  if (total > limits.flightArea.maxPositions) {
    bag.add('volumes', `The volumes must not have more than ${limits.flightArea.maxPositions} positions in all (they have ${total}).`);
    return refusal();
  }

  const built = list.map((volume, index) => {
    const path = at('volumes', index);
    if (!isRecord(volume) || refused(path)) return null;
    return buildVolume(volume, path, positions[index] ?? 0, limits, now, vertical, bag);
  });
  if (!bag.empty || built.some((volume) => volume === null)) return refusal();
  const volumes = built as BuiltVolume[];

  const start = new Date(Math.min(...volumes.map((volume) => volume.start.getTime())));
  const end = new Date(Math.max(...volumes.map((volume) => volume.end.getTime())));
  const hours = (end.getTime() - start.getTime()) / 3_600_000;
  if (hours > limits.maxDurationHours) {
    bag.add('volumes', `The volumes must lie within one window of at most ${limits.maxDurationHours} hours (they span ${hours.toFixed(1)} hours).`);
  }
  const polygons = volumes.map((volume) => volume.polygon);
  const areaM2 = totalArea(polygons);
  if (areaM2 > limits.flightArea.maxAreaM2) {
    const covered = (areaM2 / 1e6).toFixed(2);
    bag.add('volumes', `The volumes must not cover more than ${limits.flightArea.maxAreaM2 / 1e6} km² in all (they cover ${covered} km²).`);
  }
  const maxAltitudeM = Math.max(...volumes.map((volume) => Math.ceil(heightAboveGround(volume.upper, boundsOf(volume.polygon), vertical))));
  agreeWithSpecFields(input, schemaErrors, { start, end, maxAltitudeM }, specFields);
  if (!bag.empty || !specFields.empty) return refusal();

  return {
    errors: {},
    checked: {
      area: {
        stored: { type: 'FeatureCollection', features: volumes.map((volume) => volume.feature) },
        polygons,
        summary: summarise(polygons, areaM2),
      },
      volumes: volumes.map((volume) => ({
        bbox: boundsOf(volume.polygon),
        start_time: volume.start,
        end_time: volume.end,
        altitude_lower: volume.lower,
        altitude_upper: volume.upper,
      })),
      start,
      end,
      maxAltitudeM,
    },
  };
}

function positionsOf(geometry: unknown): number {
  if (!isRecord(geometry)) return 0;
  const type = own(geometry, 'type');
  return type === 'Polygon' || type === 'MultiPolygon' || type === 'Point' ? countPositions(type, own(geometry, 'coordinates')) : 0;
}

function buildVolume(
  volume: Record<string, unknown>,
  path: string,
  positions: number,
  limits: SubmissionLimits,
  now: Date,
  vertical: VerticalModel,
  bag: FieldErrorBag,
): BuiltVolume | null {
  const geometryPath = at(path, 'geometry');
  if (positions > VOLUME_LIMITS.maxPositionsPerVolume) {
    bag.add(
      geometryPath,
      `The ${attribute(geometryPath)} must not have more than ${VOLUME_LIMITS.maxPositionsPerVolume} positions (it has ${positions}).`,
    );
    return null;
  }
  const geometry = own(volume, 'geometry');
  const type = readGeometryType(geometry, geometryPath, ['Polygon', 'MultiPolygon', 'Point'], bag);
  const radiusM = readRadius(own(volume, 'radius_m'), type, at(path, 'radius_m'), limits, bag);
  const window = checkTimeWindow(own(volume, 'start_time') as string, own(volume, 'end_time') as string, limits, now);
  for (const [field, messages] of Object.entries(window.errors)) {
    const fieldPath = at(path, field);
    for (const message of messages) bag.add(fieldPath, message.replace(`The ${attribute(field)} field`, `The ${attribute(fieldPath)} field`));
  }
  const lower = own(volume, 'altitude_lower') as Altitude;
  const upper = own(volume, 'altitude_upper') as Altitude;
  if (!type) return null;
  const feature = buildFeature(
    {
      path,
      type,
      coordinates: own(geometry as Record<string, unknown>, 'coordinates'),
      properties: radiusM === null ? {} : { radius_m: radiusM },
      radiusM,
      id: undefined,
    },
    bag,
  );
  if (!feature || (type === 'Point' && radiusM === null)) return null;
  if (!checkBand(lower, upper, boundsOf(feature.polygon), path, limits, vertical, bag) || !window.start || !window.end) return null;
  return { feature: feature.stored, polygon: feature.polygon, start: window.start, end: window.end, lower, upper };
}

function readRadius(radius: unknown, type: string | null, path: string, limits: SubmissionLimits, bag: FieldErrorBag): number | null {
  if (type !== 'Point') {
    if (radius !== undefined) bag.add(path, `The ${attribute(path)} field is prohibited unless the geometry is a Point.`);
    return null;
  }
  if (radius === undefined) bag.add(path, `The ${attribute(path)} field is required when the geometry is a Point.`);
  else if (typeof radius === 'number' && (radius < 1 || radius > limits.flightArea.maxRadiusM)) {
    bag.add(path, `The ${attribute(path)} field must be between 1 and ${limits.flightArea.maxRadiusM}.`);
  } else if (typeof radius === 'number') return radius;
  return null;
}

/** One reference for both limits, lower below upper, and within the service's heights. */
function checkBand(
  lower: Altitude,
  upper: Altitude,
  box: [number, number, number, number],
  path: string,
  limits: SubmissionLimits,
  vertical: VerticalModel,
  bag: FieldErrorBag,
): boolean {
  const lowerPath = at(at(path, 'altitude_lower'), 'value');
  const upperPath = at(at(path, 'altitude_upper'), 'value');
  if (lower.reference !== upper.reference) {
    const referencePath = at(at(path, 'altitude_upper'), 'reference');
    bag.add(referencePath, `The ${attribute(referencePath)} field must be the same as the altitude lower's (${lower.reference}).`);
    return false;
  }
  let sound = true;
  for (const [limit, limitPath] of [
    [lower, lowerPath],
    [upper, upperPath],
  ] as const) {
    const metres = metresOf(limit);
    if (limit.reference === 'AGL' && metres < 0) {
      bag.add(limitPath, `The ${attribute(limitPath)} field must not be below the ground (at least 0).`);
      sound = false;
    } else if (limit.reference !== 'AGL' && (metres < LOWEST_AMSL_M || metres > HIGHEST_AMSL_M)) {
      bag.add(limitPath, `The ${attribute(limitPath)} field must be between ${LOWEST_AMSL_M} and ${HIGHEST_AMSL_M} metres.`);
      sound = false;
    }
  }
  if (!sound) return false;
  if (!(metresOf(lower) < metresOf(upper))) {
    bag.add(upperPath, `The ${attribute(upperPath)} field must be above the altitude lower.`);
    return false;
  }
  const height = Math.ceil(heightAboveGround(upper, box, vertical));
  if (height < 1 || height > limits.maxAltitudeM) {
    bag.add(
      upperPath,
      `The ${attribute(upperPath)} field must be between 1 and ${limits.maxAltitudeM} metres above the ground (it is ${height} m here).`,
    );
    return false;
  }
  return true;
}

/** The spec's times and ceiling sent beside volumes must say what the volumes do. */
function agreeWithSpecFields(
  input: Record<string, unknown>,
  schemaErrors: FieldErrors,
  derived: { start: Date; end: Date; maxAltitudeM: number },
  bag: FieldErrorBag,
): void {
  const sent = (field: string) => (schemaErrors[field] ? undefined : own(input, field));
  const startText = sent('start_time');
  if (typeof startText === 'string' && parseUtcInstant(startText)?.getTime() !== derived.start.getTime()) {
    bag.add('start_time', `The start time field must be the volumes' earliest start (${derived.start.toISOString()}), or be left out.`);
  }
  const endText = sent('end_time');
  if (typeof endText === 'string' && parseUtcInstant(endText)?.getTime() !== derived.end.getTime()) {
    bag.add('end_time', `The end time field must be the volumes' latest end (${derived.end.toISOString()}), or be left out.`);
  }
  const altitude = sent('max_altitude');
  if (typeof altitude === 'number' && altitude !== derived.maxAltitudeM) {
    bag.add(
      'max_altitude',
      `The max altitude field must be the volumes' highest upper limit in metres above the ground (${derived.maxAltitudeM}), or be left out.`,
    );
  }
}
