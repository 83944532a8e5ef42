import Router from '@koa/router';
import { listRequest, renderList } from '@dfc/kit/pagination';
import { NotFoundError } from '@dfc/kit/errors';
import { publicPath, requireRole, type KitState } from '@dfc/kit/http';
import { queryValidator } from '@dfc/kit/validation';
import { ReviewListQuery } from '@dfc/contracts';
import type { UseCaseDeps } from '../use-cases/deps.js';
import { decideReviewItem } from '../use-cases/decide-review-item.js';
import { listReviewItems } from '../use-cases/list-review-items.js';
import { reviewQueueEntry } from './render.js';

const validateListQuery = queryValidator(ReviewListQuery);

export function reviewsRouter(deps: UseCaseDeps): Router<KitState> {
  const router = new Router<KitState>({ prefix: '/api/reviews' });

  router.get('/', requireRole('reviewer', 'admin'), async (ctx) => {
    const query = validateListQuery({ ...ctx.query });
    const request = listRequest(query, ctx.query['page'] !== undefined);
    const page = await listReviewItems(deps, ctx.state.principal, query, request);
    const entries = page.rows.flatMap((row) => {
      const entry = reviewQueueEntry(row.doc, row.itemId);
      return entry ? [{ ...entry, competing: row.competing }] : [];
    });
    const filters = ctx.state.principal.role === 'admin' ? { authority: query.authority } : {};
    ctx.body = renderList(request, entries, page, publicPath(ctx), filters);
  });

  router.post('/:id/decision', requireRole('reviewer', 'admin'), async (ctx) => {
    const decided = await decideReviewItem(deps, ctx.state.principal, ctx.params['id'] ?? '', ctx.state.body, ctx.state.requestId);
    const entry = reviewQueueEntry(decided.request, decided.itemId);
    if (!entry) throw new NotFoundError();
    ctx.body = { data: entry };
  });

  return router;
}
