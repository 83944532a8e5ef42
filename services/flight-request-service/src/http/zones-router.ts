import Router from '@koa/router';
import { paginate } from '@dfc/kit/pagination';
import { noBodyFields, publicPath, requireRole, resourceLocation, type KitState } from '@dfc/kit/http';
import { queryValidator } from '@dfc/kit/validation';
import { ZoneListQuery, ZoneQuery } from '@dfc/contracts';
import type { Context } from 'koa';
import type { UseCaseDeps } from '../use-cases/deps.js';
import { importZones } from '../use-cases/zones/import-zones.js';
import { createZone, deleteZone, getZone, listZones, replaceZone, windowOf, zoneVersions } from '../use-cases/zones/manage-zones.js';
import { zoneRecord, type LanguageChooser } from './zone-record.js';

export const ZONE_IMPORT_PATH = '/api/zones/import';

const validateListQuery = queryValidator(ZoneListQuery);
const validateZoneQuery = queryValidator(ZoneQuery);

/**
 * Geo-zones. Reading them is geo-awareness, a service to every operator
 * (U-space, EU 2021/664): any authenticated key lists and reads published
 * zones; administration (and retired zones) is for admins (PRODUCT.md "Review").
 */
export function zonesRouter(deps: UseCaseDeps): Router<KitState> {
  const router = new Router<KitState>({ prefix: '/api/zones' });
  const readers = requireRole('admin', 'operator', 'reviewer');
  const admins = requireRole('admin');

  router.get('/', readers, async (ctx) => {
    const query = validateListQuery({ ...ctx.query });
    const listing = await listZones(deps, query, isAdmin(ctx));
    const choose = chooser(ctx);
    ctx.body = paginate(
      listing.items.map((zone) => zoneRecord(zone, choose, listing.window)),
      listing.total,
      listing.page,
      publicPath(ctx),
      {
        type: query.type,
        restriction: query.restriction,
        bbox: query.bbox,
        from: query.from,
        to: query.to,
        status: query.status,
      },
    );
  });

  router.post('/', admins, async (ctx) => {
    const zone = await createZone(deps, ctx.state.body, ctx.state.requestId);
    ctx.status = 201;
    ctx.set('Location', resourceLocation(ctx, `/zones/${zone.id}`));
    ctx.body = { data: zoneRecord(zone, chooser(ctx)) };
  });

  router.post('/import', admins, async (ctx) => {
    ctx.body = { data: await importZones(deps, ctx.state.body, ctx.state.requestId) };
  });

  router.get('/:id', readers, async (ctx) => {
    const window = windowOf(validateZoneQuery({ ...ctx.query }));
    ctx.body = { data: zoneRecord(await getZone(deps, ctx.params['id'] ?? '', isAdmin(ctx)), chooser(ctx), window) };
  });

  router.get('/:id/versions', admins, async (ctx) => {
    const choose = chooser(ctx);
    ctx.body = { data: (await zoneVersions(deps, ctx.params['id'] ?? '')).map((zone) => zoneRecord(zone, choose)) };
  });

  router.put('/:id', admins, async (ctx) => {
    ctx.body = { data: zoneRecord(await replaceZone(deps, ctx.params['id'] ?? '', ctx.state.body, ctx.state.requestId), chooser(ctx)) };
  });

  router.delete('/:id', admins, noBodyFields(), async (ctx) => {
    await deleteZone(deps, ctx.params['id'] ?? '', ctx.state.requestId);
    ctx.status = 204;
  });

  return router;
}

function isAdmin(ctx: { state: KitState }): boolean {
  return ctx.state.principal?.role === 'admin';
}

function chooser(ctx: Context): LanguageChooser {
  return (offered) => ctx.acceptsLanguages(offered);
}
