import { intersect } from '@turf/intersect';
import { featureCollection } from '@turf/helpers';
import { toOffsetTimestamp } from '@dfc/contracts';
import { areasIntersect, type AreaPolygon, type BBox } from '../geometry/flight-area.js';
import { boundsOf } from '../geometry/intersect.js';
import { bandOf, bandsOverlap, sharedBand } from '../volumes/band.js';
import { groundVolume, type FlightVolume } from '../volumes/flight-volume.js';
import { NO_VERTICAL_MODEL, type VerticalModel } from '../zones/vertical.js';
import { compareIds } from '../zones/zone-index.js';
import type { ApprovedFlight, ConflictVolume, Finding, ReviewItemDraft, ScreeningInput, ScreeningRules } from './types.js';

/*
 * Deconfliction: another operator's Approved flight with a volume that shares
 * area, altitude band and time with one of ours (band.ts says how bands of
 * different references compare).
 *
 * What the submitting operator learns is only the volume both flights would
 * share (time window, altitude band, area): never the other flight's
 * identifiers, its operator, or its own extent.
 */

/** One of our volumes meeting one of another flight's in all four dimensions. */
export interface VolumeConflict {
  flight: ApprovedFlight;
  ours: FlightVolume;
  theirs: FlightVolume;
}

/** The volumes of an approved flight: its own, or the one its fields form. */
export function flightVolumes(flight: ApprovedFlight): FlightVolume[] {
  return flight.volumes ?? [groundVolume(flight.polygons, flight.start, flight.end, flight.max_altitude)];
}

/** The volumes of the screened submission. */
export function inputVolumes(input: Pick<ScreeningInput, 'volumes' | 'polygons' | 'bbox' | 'start' | 'end' | 'maxAltitudeM'>): FlightVolume[] {
  return input.volumes ?? [{ ...groundVolume(input.polygons, input.start, input.end, input.maxAltitudeM), bbox: input.bbox }];
}

/** Whether two volumes share a window (half-open), a band and a point of area. */
export function volumesConflict(a: FlightVolume, b: FlightVolume, model: VerticalModel): boolean {
  return (
    a.start.getTime() < b.end.getTime() &&
    b.start.getTime() < a.end.getTime() &&
    bandsOverlap(bandOf(a.lower, a.upper, a.bbox, model), bandOf(b.lower, b.upper, b.bbox, model)) &&
    areasIntersect(a.polygons, b.polygons)
  );
}

/** Every pair of our volume and another operator's approved volume in conflict, ordered by flight uuid, then volumes. */
export function volumeConflicts(
  ours: FlightVolume[],
  operatorUuid: string,
  flights: ApprovedFlight[],
  model: VerticalModel = NO_VERTICAL_MODEL,
): VolumeConflict[] {
  return flights
    .filter((flight) => flight.operator_uuid !== operatorUuid)
    .sort((a, b) => compareIds(a.uuid, b.uuid))
    .flatMap((flight) =>
      ours.flatMap((volume) =>
        flightVolumes(flight)
          .filter((theirs) => volumesConflict(volume, theirs, model))
          .map((theirs) => ({ flight, ours: volume, theirs })),
      ),
    );
}

export function deconflictionFindings(conflicts: VolumeConflict[], input: ScreeningInput): Finding[] {
  const named = input.volumes !== undefined;
  return conflicts.map(({ ours, theirs }) => {
    const conflict = sharedVolume(theirs, ours, input.rules.vertical);
    const reference = conflict.altitude_reference ? ` ${conflict.altitude_reference}` : '';
    const finding: Finding = {
      code: 'DECONFLICTION_OVERLAP',
      message:
        `${named ? `Volume ${ours.index} of the flight` : 'The flight'} overlaps an approved flight of another operator ` +
        `from ${conflict.start_time} to ${conflict.end_time}, ` +
        `from ${conflict.lower_altitude_m} m${reference} up to ${conflict.upper_altitude_m} m${reference}, within [${conflict.bbox.join(', ')}].`,
      zone_id: null,
      zone_name: null,
      authority: input.rules.nationalAuthority,
      conflict,
    };
    if (named) finding.volume = ours.index;
    return finding;
  });
}

/** One item for the whole group of conflicts: the national authority deconflicts them together. */
export function deconflictionItem(flights: ApprovedFlight[], rules: ScreeningRules): ReviewItemDraft {
  const count = flights.length === 1 ? 'an approved flight' : `${flights.length} approved flights`;
  return {
    kind: 'deconfliction',
    authority: rules.nationalAuthority,
    zone_id: null,
    finding_codes: ['DECONFLICTION_OVERLAP'],
    message: `The flight overlaps in area and time with ${count} of other operators (see the DECONFLICTION_OVERLAP findings).`,
  };
}

/**
 * The part of our volume that their volume shares: both windows, both bands
 * (in their common reference, rounded outwards to whole metres), both areas.
 */
export function sharedVolume(theirs: FlightVolume, ours: FlightVolume, model: VerticalModel = NO_VERTICAL_MODEL): ConflictVolume {
  const start = Math.max(theirs.start.getTime(), ours.start.getTime());
  const end = Math.min(theirs.end.getTime(), ours.end.getTime());
  const band = sharedBand(bandOf(theirs.lower, theirs.upper, theirs.bbox, model), bandOf(ours.lower, ours.upper, ours.bbox, model));
  return {
    start_time: toOffsetTimestamp(new Date(start)),
    end_time: toOffsetTimestamp(new Date(end)),
    lower_altitude_m: Math.floor(band.lower_m),
    upper_altitude_m: Math.ceil(band.upper_m),
    ...(band.reference === 'AGL' ? {} : { altitude_reference: band.reference }),
    bbox: sharedBounds(ours.polygons, theirs.polygons),
  };
}

/**
 * The bounding box of the true intersection of the two areas (@turf/intersect,
 * pair by pair). Shapes that only touch, or that the library cannot cut, count
 * with the overlap of their boxes, which still contains what they share.
 */
function sharedBounds(ours: AreaPolygon[], theirs: AreaPolygon[]): BBox {
  const boxes: BBox[] = [];
  for (const a of ours) {
    for (const b of theirs) {
      if (!areasIntersect([a], [b])) continue;
      const shared = intersectionOf(a, b);
      boxes.push(shared === undefined ? overlapOf(boundsOf(a), boundsOf(b)) : boundsOf(shared));
    }
  }
  return union(boxes);
}

/** The shared part of two shapes; undefined when they only touch or the library fails on them. */
function intersectionOf(a: AreaPolygon, b: AreaPolygon): AreaPolygon | undefined {
  try {
    return intersect(featureCollection([a, b])) ?? undefined;
  } catch {
    return undefined;
  }
}

function overlapOf(a: BBox, b: BBox): BBox {
  return [Math.max(a[0], b[0]), Math.max(a[1], b[1]), Math.min(a[2], b[2]), Math.min(a[3], b[3])];
}

function union(boxes: BBox[]): BBox {
  return boxes.reduce((all, box) => [Math.min(all[0], box[0]), Math.min(all[1], box[1]), Math.max(all[2], box[2]), Math.max(all[3], box[3])]);
}
