import { ConflictError } from '@dfc/kit/errors';
import type { FlightRequest } from '../flight-request/flight-request.js';
import { sharedVolume } from '../screening/deconfliction.js';
import type { ApprovedFlight, ConflictVolume } from '../screening/screen.js';

/**
 * 409: the approval would take airspace another operator's flight holds (or
 * is taking at this moment). The body names only the volumes both would
 * share, never the other flight or its operator; the item stays pending.
 */
export class AirspaceTakenError extends ConflictError {
  readonly conflicts: ConflictVolume[];

  constructor(request: Pick<FlightRequest, 'start_time' | 'end_time' | 'max_altitude' | 'geometry'>, flights: ApprovedFlight[]) {
    super(
      flights.length > 0
        ? 'The flight overlaps an approved flight of another operator: it cannot be approved while that flight holds the airspace.'
        : 'The flight request changed while its airspace was being reserved; decide again.',
    );
    this.conflicts = flights.map((flight) =>
      sharedVolume(flight, {
        polygons: request.geometry.polygons,
        start: request.start_time,
        end: request.end_time,
        maxAltitudeM: request.max_altitude,
      }),
    );
  }

  override body(): Record<string, unknown> {
    return { ...super.body(), ...(this.conflicts.length > 0 ? { conflicts: this.conflicts } : {}) };
  }
}
