import { screen, type ApprovedFlight, type ScreeningResult } from '../domain/screening/screen.js';
import type { ValidSubmission } from '../domain/submission/check-submission.js';
import { volumesOf } from '../domain/volumes/flight-volume.js';
import type { OperatorProjection } from '../store/operator-model.js';
import type { ZoneEpoch } from '../store/zone-epoch-store.js';
import type { UseCaseDeps } from './deps.js';
import { flightsHolding, volumeOf } from './deconfliction/reserve-airspace.js';

/** A screening's outcome, with the zone epoch its zones were current at. */
export type EpochScreening = ScreeningResult & { zoneEpoch: ZoneEpoch };

/**
 * Gathers what screening needs — candidate zones from the in-memory index,
 * caught up first with every zone change that ended before the screening
 * began, and other operators' Approved flights overlapping in time, band and
 * bounding box (read from the reservation ledger), with `alsoTaken`: flights
 * found holding the airspace when it was to be reserved — and runs the pure
 * screening rules on them.
 */
export async function screenSubmission(
  deps: UseCaseDeps,
  submission: ValidSubmission,
  operator: OperatorProjection,
  alsoTaken: ApprovedFlight[] = [],
): Promise<EpochScreening> {
  const { bbox } = submission.area.summary;
  const zoneEpoch = await deps.zoneSync.current();
  const approved = await flightsHolding(deps, volumeOf({ ...submission, geometry: submission.area }));
  const approvedFlights = [...approved, ...alsoTaken.filter((taken) => !approved.some((flight) => flight.uuid === taken.uuid))];
  const stopTimer = deps.metrics.screeningSeconds.startTimer();
  try {
    const result = screen({
      polygons: submission.area.polygons,
      bbox,
      start: submission.start_time,
      end: submission.end_time,
      maxAltitudeM: submission.max_altitude,
      ...(submission.volumes ? { volumes: volumesOf({ ...submission, geometry: { polygons: submission.area.polygons } }) } : {}),
      operatorUuid: submission.operator_uuid,
      operator: { exemption_for_ctr: operator.exemption_for_ctr },
      zones: deps.zoneIndex.search(bbox),
      approvedFlights,
      rules: deps.rules,
    });
    return { ...result, zoneEpoch };
  } finally {
    stopTimer();
  }
}
