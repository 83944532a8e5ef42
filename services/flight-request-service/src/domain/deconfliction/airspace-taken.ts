import { ConflictError } from '@dfc/kit/errors';
import type { FlightRequest } from '../flight-request/flight-request.js';
import { sharedVolume, volumeConflicts } from '../screening/deconfliction.js';
import type { ApprovedFlight, ConflictVolume } from '../screening/screen.js';
import { volumesOf } from '../volumes/flight-volume.js';
import { NO_VERTICAL_MODEL, type VerticalModel } from '../zones/vertical.js';

/**
 * 409: the approval would take airspace another operator's flight holds (or
 * is taking at this moment). The body names only the volumes both would
 * share, never the other flight or its operator; the item stays pending.
 */
export class AirspaceTakenError extends ConflictError {
  readonly conflicts: ConflictVolume[];

  constructor(
    request: Pick<FlightRequest, 'operator_uuid' | 'start_time' | 'end_time' | 'max_altitude' | 'volumes' | 'geometry'>,
    flights: ApprovedFlight[],
    vertical: VerticalModel = NO_VERTICAL_MODEL,
  ) {
    super(
      flights.length > 0
        ? 'The flight overlaps an approved flight of another operator: it cannot be approved while that flight holds the airspace.'
        : 'The flight request changed while its airspace was being reserved; decide again.',
    );
    this.conflicts = volumeConflicts(volumesOf(request), request.operator_uuid, flights, vertical).map(({ ours, theirs }) =>
      sharedVolume(theirs, ours, vertical),
    );
  }

  override body(): Record<string, unknown> {
    return { ...super.body(), ...(this.conflicts.length > 0 ? { conflicts: this.conflicts } : {}) };
  }
}
