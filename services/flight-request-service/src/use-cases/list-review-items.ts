import type { Principal, ReviewListQuery, SharedVolume } from '@dfc/contracts';
import { listPosition, type ListRequest } from '@dfc/kit/pagination';
import type { FlightRequestSummary } from '../domain/flight-request/flight-request.js';
import { sharedVolume, volumeConflicts } from '../domain/screening/deconfliction.js';
import { volumesOf } from '../domain/volumes/flight-volume.js';
import type { SummaryWithPolygons } from '../store/flight-request-store.js';
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
 * that the desk knows when approving one denies another. A page costs the same
 * few queries however many entries it holds: the queue's, the requests' (one
 * `$in`, or on the local engine one equality per request, `findWhereIn`) and
 * one for the pending requests around them all.
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
  const requests = await deps.requests.findManyWithPolygons([...new Set(queued.map((row) => row.flight_request_uuid))]);
  const competing = await competingVolumes(deps, requests);
  const byUuid = new Map(requests.map(({ summary }) => [summary._id, summary]));
  return queued.flatMap((row) => {
    const doc = byUuid.get(row.flight_request_uuid);
    const item = doc?.review.items.find((candidate) => candidate.id === row._id);
    return doc && item?.status === 'pending' ? [{ doc, itemId: row._id, competing: competing.get(doc._id) ?? [] }] : [];
  });
}

/**
 * For each request, what its volumes share with other operators' pending requests' (area, band
 * and time compared): the pending requests around the whole page are read in one query.
 */
async function competingVolumes(deps: UseCaseDeps, requests: SummaryWithPolygons[]): Promise<Map<string, SharedVolume[]>> {
  const placed = requests.filter(({ polygons }) => polygons.length > 0);
  const around = await deps.requests.overlappingEach(
    'Pending',
    placed.map(({ summary }) => ({ operatorUuid: summary.operator_uuid, start: summary.start_time, end: summary.end_time, bbox: summary.area.bbox })),
  );
  return new Map(
    placed.map(({ summary, polygons }, index): [string, SharedVolume[]] => {
      const ours = volumesOf({ ...summary, geometry: { polygons } });
      const conflicts = volumeConflicts(ours, summary.operator_uuid, around[index] ?? [], deps.rules.vertical);
      return [summary._id, conflicts.map(({ ours: volume, theirs }) => sharedVolume(theirs, volume, deps.rules.vertical))];
    }),
  );
}
