import type { Principal, ReviewListQuery, SharedVolume } from '@dfc/contracts';
import { listPosition, type ListRequest } from '@dfc/kit/pagination';
import type { FlightRequestSummary } from '../domain/flight-request/flight-request.js';
import { sharedVolume, volumeConflicts } from '../domain/screening/deconfliction.js';
import { volumesOf } from '../domain/volumes/flight-volume.js';
import type { QueuedReviewItem } from '../store/review-item-model.js';
import type { UseCaseDeps } from './deps.js';

export interface ReviewQueueRow {
  doc: FlightRequestSummary;
  itemId: string;
  /** The volumes the request shares with other operators' pending requests. */
  competing: SharedVolume[];
}

export interface ReviewQueuePage {
  rows: ReviewQueueRow[];
  total: number | undefined;
  nextCursor: string | null;
}

/**
 * GET /api/reviews: a reviewer's queue is its own authority's pending items,
 * oldest request first; admins see every authority's, or one. The page comes
 * from the review queue projection's index; the requests it names are then
 * read by `_id`, and they are the truth: an item decided a moment ago, whose
 * event the projection has not caught up with yet, is left out. Each entry
 * shows what its request shares with other operators' pending requests, so
 * that the desk knows when approving one denies another.
 */
export async function listReviewItems(
  deps: UseCaseDeps,
  principal: Principal,
  query: ReviewListQuery,
  request: ListRequest,
): Promise<ReviewQueuePage> {
  const authority = principal.role === 'reviewer' ? (principal.authority ?? '') : (query.authority ?? null);
  const { items, total, nextCursor } = await deps.reviewQueue.pending(authority, listPosition(request));
  return { rows: await withRequests(deps, items), total, nextCursor };
}

async function withRequests(deps: UseCaseDeps, queued: QueuedReviewItem[]): Promise<ReviewQueueRow[]> {
  if (queued.length === 0) return [];
  const uuids = [...new Set(queued.map((row) => row.flight_request_uuid))];
  const requests = await deps.requests.findMany(uuids);
  const competing = await competingVolumes(deps, requests);
  const byUuid = new Map(requests.map((request) => [request._id, request]));
  return queued.flatMap((row) => {
    const doc = byUuid.get(row.flight_request_uuid);
    const item = doc?.review.items.find((candidate) => candidate.id === row._id);
    return doc && item?.status === 'pending' ? [{ doc, itemId: row._id, competing: competing.get(doc._id) ?? [] }] : [];
  });
}

/** For each request, what its volumes share with other operators' pending requests' (area, band and time compared). */
async function competingVolumes(deps: UseCaseDeps, requests: FlightRequestSummary[]): Promise<Map<string, SharedVolume[]>> {
  const geometries = await deps.requests.holders(requests.map((request) => request._id));
  const entries = await Promise.all(
    requests.map(async (request): Promise<[string, SharedVolume[]]> => {
      const polygons = geometries.get(request._id)?.polygons ?? [];
      if (polygons.length === 0) return [request._id, []];
      const others = await deps.requests.overlapping('Pending', request.operator_uuid, request.start_time, request.end_time, request.area.bbox);
      const ours = volumesOf({ ...request, geometry: { polygons } });
      const conflicts = volumeConflicts(ours, request.operator_uuid, others, deps.rules.vertical);
      return [request._id, conflicts.map(({ ours: volume, theirs }) => sharedVolume(theirs, volume, deps.rules.vertical))];
    }),
  );
  return new Map(entries);
}
