import { randomUUID } from 'node:crypto';
import type { FlightRequestStatus } from '@dfc/contracts';
import type { ReviewItem } from '../../src/domain/review/review-group.js';
import { waitFor, unrecorded } from '@dfc/kit/testing';
import { reviewItemsChanged } from '../../src/domain/events/review-item-events.js';
import type { FlightRequest, FlightRequestGeometry } from '../../src/domain/flight-request/flight-request.js';
import type { TestService } from './test-service.js';
import { featureCollection, square } from './fixtures.js';

/**
 * A request written straight to the store, for states the API cannot create
 * on demand (a start already passed, a window already over).
 */
export function storedRequest(options: {
  operatorUuid: string;
  status: FlightRequestStatus;
  start: Date;
  end: Date;
  items?: Array<Pick<ReviewItem, 'authority' | 'kind'>>;
}): Omit<FlightRequest, 'version'> {
  const created = new Date(options.start.getTime() - 3_600_000);
  const items: ReviewItem[] = (options.items ?? []).map((item) => ({
    id: randomUUID(),
    kind: item.kind,
    authority: item.authority,
    zone_id: null,
    finding_codes: [],
    message: 'needs a look',
    status: 'pending',
    reason: null,
    decided_at: null,
    decided_by: null,
  }));
  const area = featureCollection(square(4.89, 52.37)) as unknown as FlightRequestGeometry['flight_area'];
  const uuid = randomUUID();
  return {
    _id: uuid,
    operator_uuid: options.operatorUuid,
    status: options.status,
    operator_name: 'Jan de Vries',
    operator_email: 'jan@example.com',
    operator_phone: '+31 20 123 4567',
    operator_company: null,
    operational_authorisation_number: null,
    start_time: options.start,
    end_time: options.end,
    max_altitude: 200,
    aircraft_type: 'multirotor',
    purpose: 'stored by a test',
    area: { bbox: [4.89, 52.37, 4.9, 52.38], centroid: [4.895, 52.375], area_m2: 760_000, feature_count: 1 },
    geometry: { flight_area: area, polygons: area.features as FlightRequestGeometry['polygons'] },
    review: { findings: [], items, complete: items.length === 0 },
    review_authorities: [...new Set(items.map((item) => item.authority))],
    cancellation: null,
    status_history: [{ status: 'Pending', at: created, actor: 'operator', reason: null }],
    idempotency: null,
    created_at: created,
    updated_at: created,
  };
}

/**
 * Writes a stored request as the service would: through its store, with the
 * event that puts its items into the review queue; waits until they are there.
 */
export async function insertStored(t: TestService, request: Omit<FlightRequest, 'version'>): Promise<void> {
  const { items } = request.review;
  await t.service.deps.requests.insert(request, items.length > 0 ? [reviewItemsChanged(request, 0, items)] : []);
  if (items.length === 0) return;
  await waitFor(
    async () => (await unrecorded(() => t.service.deps.reviewQueue.model.countDocuments({ flight_request_uuid: request._id }))) === items.length,
  );
}
