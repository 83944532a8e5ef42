import { skipFor, type PageRequest } from '@dfc/kit/http';
import type { Principal, ReviewListQuery } from '@dfc/contracts';
import type { ReviewQueueRow } from '../store/flight-request-store.js';
import type { UseCaseDeps } from './deps.js';

export interface ReviewQueuePage {
  rows: ReviewQueueRow[];
  total: number;
  page: PageRequest;
}

/** GET /api/reviews: a reviewer's queue is its own authority's pending items, oldest request first; admins see every authority's, or one. */
export async function listReviewItems(deps: UseCaseDeps, principal: Principal, query: ReviewListQuery): Promise<ReviewQueuePage> {
  const authority = principal.role === 'reviewer' ? (principal.authority ?? '') : (query.authority ?? null);
  const page = { page: query.page, per_page: query.per_page };
  const { rows, total } = await deps.requests.reviewQueue(authority, skipFor(page), page.per_page);
  return { rows, total, page };
}
