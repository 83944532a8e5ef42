import { randomUUID } from 'node:crypto';
import type { FlightRequestStatus } from '@dfc/contracts';
import type { ReviewItem } from '../../src/domain/review/review-group.js';
import { reviewItemPointerModel, type StoredFlightRequest } from '../../src/store/flight-request-model.js';
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
}): StoredFlightRequest {
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
  const area = featureCollection(square(4.89, 52.37));
  const uuid = randomUUID();
  return {
    _id: uuid,
    uuid,
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
    bbox_west: 4.89,
    bbox_south: 52.37,
    bbox_east: 4.9,
    bbox_north: 52.38,
    flight_area_json: JSON.stringify(area),
    polygons_json: JSON.stringify((area as { features: unknown[] }).features),
    review: { findings: [], items, complete: items.length === 0 },
    pending_authorities: [...new Set(items.map((item) => item.authority))],
    review_authorities: [...new Set(items.map((item) => item.authority))],
    cancellation: null,
    status_history: [{ status: 'Pending', at: created, actor: 'operator', reason: null }],
    idempotency: null,
    version: 1,
    created_at: created,
    updated_at: created,
  };
}

/** Writes a stored request as the service would: the document and its review items' pointers. */
export async function insertStored(t: TestService, request: StoredFlightRequest): Promise<void> {
  await t.service.deps.requests.model.create(request);
  const pointers = request.review.items.map((item) => ({ _id: item.id, uuid: request.uuid }));
  if (pointers.length > 0) await reviewItemPointerModel(t.connection).insertMany(pointers);
}
