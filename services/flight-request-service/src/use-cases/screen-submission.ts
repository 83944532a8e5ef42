import { screen, type ApprovedFlight, type ScreeningResult } from '../domain/screening/screen.js';
import type { ValidSubmission } from '../domain/submission/check-submission.js';
import type { OperatorProjection } from '../store/operator-model.js';
import type { UseCaseDeps } from './deps.js';
import { flightsHolding, volumeOf } from './deconfliction/reserve-airspace.js';

/**
 * Gathers what screening needs — candidate zones from the in-memory index and
 * other operators' Approved flights overlapping in time, band and bounding box
 * (read from the reservation ledger), with
 * `alsoTaken`: flights found holding the airspace when it was to be reserved —
 * and runs the pure screening rules on them.
 */
export async function screenSubmission(
  deps: UseCaseDeps,
  submission: ValidSubmission,
  operator: OperatorProjection,
  alsoTaken: ApprovedFlight[] = [],
): Promise<ScreeningResult> {
  const { bbox } = submission.area.summary;
  const approved = await flightsHolding(deps, volumeOf({ ...submission, geometry: submission.area }));
  const approvedFlights = [...approved, ...alsoTaken.filter((taken) => !approved.some((flight) => flight.uuid === taken.uuid))];
  const stopTimer = deps.metrics.screeningSeconds.startTimer();
  try {
    return screen({
      polygons: submission.area.polygons,
      bbox,
      start: submission.start_time,
      end: submission.end_time,
      maxAltitudeM: submission.max_altitude,
      operatorUuid: submission.operator_uuid,
      operator: { exemption_for_ctr: operator.exemption_for_ctr },
      zones: deps.zoneIndex.search(bbox),
      approvedFlights,
      rules: deps.rules,
    });
  } finally {
    stopTimer();
  }
}
