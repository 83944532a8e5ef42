import { areasIntersect, type AreaPolygon } from '../geometry/flight-area.js';
import { compareIds } from '../zones/zone-index.js';
import type { Finding, ReviewItemDraft, ScreeningInput, ScreeningRules } from './screen.js';

/*
 * Deconfliction: another operator's Approved flight sharing area and time. Both
 * flights fly from the ground up, so their altitude bands always meet.
 */

export interface ApprovedFlight {
  uuid: string;
  operator_uuid: string;
  start: Date;
  end: Date;
  max_altitude: number;
  polygons: AreaPolygon[];
}

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

export function deconflictionFindings(flights: ApprovedFlight[], rules: ScreeningRules): Finding[] {
  return flights.map((flight) => ({
    code: 'DECONFLICTION_OVERLAP',
    message:
      `The flight overlaps approved flight ${flight.uuid} of another operator ` +
      `(${flight.start.toISOString()} to ${flight.end.toISOString()}, up to ${flight.max_altitude} m).`,
    zone_id: null,
    zone_name: null,
    authority: rules.nationalAuthority,
    flight_request_uuid: flight.uuid,
  }));
}

/** One item for the whole group of conflicts: the national authority deconflicts them together. */
export function deconflictionItem(flights: ApprovedFlight[], rules: ScreeningRules): ReviewItemDraft {
  const uuids = flights.map((flight) => flight.uuid).join(', ');
  return {
    kind: 'deconfliction',
    authority: rules.nationalAuthority,
    zone_id: null,
    finding_codes: ['DECONFLICTION_OVERLAP'],
    message: `The flight overlaps in area and time with approved flights of other operators: ${uuids}.`,
  };
}
