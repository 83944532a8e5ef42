import { intersect } from '@turf/intersect';
import { featureCollection } from '@turf/helpers';
import { toOffsetTimestamp } from '@dfc/contracts';
import { areasIntersect, type AreaPolygon, type BBox } from '../geometry/flight-area.js';
import { boundsOf } from '../geometry/intersect.js';
import { compareIds } from '../zones/zone-index.js';
import type { ApprovedFlight, ConflictVolume, Finding, ReviewItemDraft, ScreeningInput, ScreeningRules } from './types.js';

/*
 * Deconfliction: another operator's Approved flight sharing area and time. Both
 * flights fly from the ground up, so their altitude bands always meet.
 *
 * What the submitting operator learns is only the volume both flights would
 * share (time window, altitude band, area): never the other flight's
 * identifiers, its operator, or its own extent.
 */

/** Other operators' approved flights overlapping in time (half-open windows) and area, ordered by uuid. */
export function conflictingFlights(input: ScreeningInput): ApprovedFlight[] {
  return input.approvedFlights
    .filter(
      (flight) =>
        flight.operator_uuid !== input.operatorUuid &&
        flight.start.getTime() < input.end.getTime() &&
        input.start.getTime() < flight.end.getTime() &&
        areasIntersect(input.polygons, flight.polygons),
    )
    .sort((a, b) => compareIds(a.uuid, b.uuid));
}

export function deconflictionFindings(flights: ApprovedFlight[], input: ScreeningInput): Finding[] {
  return flights.map((flight) => {
    const conflict = sharedVolume(flight, input);
    return {
      code: 'DECONFLICTION_OVERLAP',
      message:
        `The flight overlaps an approved flight of another operator from ${conflict.start_time} to ${conflict.end_time}, ` +
        `from ${conflict.lower_altitude_m} m up to ${conflict.upper_altitude_m} m, within [${conflict.bbox.join(', ')}].`,
      zone_id: null,
      zone_name: null,
      authority: input.rules.nationalAuthority,
      conflict,
    };
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

/** The part of the submitted flight that the other flight shares: both windows, both bands, both areas. */
export function sharedVolume(flight: ApprovedFlight, input: Pick<ScreeningInput, 'polygons' | 'start' | 'end' | 'maxAltitudeM'>): ConflictVolume {
  const start = Math.max(flight.start.getTime(), input.start.getTime());
  const end = Math.min(flight.end.getTime(), input.end.getTime());
  return {
    start_time: toOffsetTimestamp(new Date(start)),
    end_time: toOffsetTimestamp(new Date(end)),
    lower_altitude_m: 0,
    upper_altitude_m: Math.min(flight.max_altitude, input.maxAltitudeM),
    bbox: sharedBounds(input.polygons, flight.polygons),
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
