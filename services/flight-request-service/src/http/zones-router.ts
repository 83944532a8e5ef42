import Router from '@koa/router';
import { paginate } from '@dfc/kit/pagination';
import { publicPath, requireRole, resourceLocation, type KitState } from '@dfc/kit/http';
import { queryValidator } from '@dfc/kit/validation';
import { ZoneListQuery, type GeoZoneRecord, toOffsetTimestamp } from '@dfc/contracts';
import type { ZoneDoc } from '../store/zone-store.js';
import type { UseCaseDeps } from '../use-cases/deps.js';
import { importZones } from '../use-cases/zones/import-zones.js';
import { createZone, deleteZone, getZone, listZones, replaceZone } from '../use-cases/zones/manage-zones.js';

export const ZONE_IMPORT_PATH = '/api/zones/import';

const validateListQuery = queryValidator(ZoneListQuery);

/** Geo-zone administration: admins only (PRODUCT.md "Review"). */
export function zonesRouter(deps: UseCaseDeps): Router<KitState> {
  const router = new Router<KitState>({ prefix: '/api/zones' });
  router.use(requireRole('admin'));

  router.get('/', async (ctx) => {
    const query = validateListQuery({ ...ctx.query });
    const page = await listZones(deps, query);
    ctx.body = paginate(page.items.map(zoneRecord), page.total, page.page, publicPath(ctx), {
      type: query.type,
      restriction: query.restriction,
    });
  });

  router.post('/', async (ctx) => {
    const zone = await createZone(deps, ctx.state.body, ctx.state.requestId);
    ctx.status = 201;
    ctx.set('Location', resourceLocation(ctx, `/zones/${zone.id}`));
    ctx.body = { data: zoneRecord(zone) };
  });

  router.post('/import', async (ctx) => {
    ctx.body = { data: await importZones(deps, ctx.state.body, ctx.state.requestId) };
  });

  router.get('/:id', async (ctx) => {
    ctx.body = { data: zoneRecord(await getZone(deps, ctx.params['id'] ?? '')) };
  });

  router.put('/:id', async (ctx) => {
    ctx.body = { data: zoneRecord(await replaceZone(deps, ctx.params['id'] ?? '', ctx.state.body, ctx.state.requestId)) };
  });

  router.delete('/:id', async (ctx) => {
    await deleteZone(deps, ctx.params['id'] ?? '', ctx.state.requestId);
    ctx.status = 204;
  });

  return router;
}

function zoneRecord(zone: ZoneDoc): GeoZoneRecord {
  return {
    id: zone.id,
    name: zone.name,
    type: zone.type as GeoZoneRecord['type'],
    restriction: zone.restriction,
    lower_limit_m: zone.lower_limit_m,
    upper_limit_m: zone.upper_limit_m,
    schedule: zone.schedule,
    authority: zone.authority,
    ctr_exemption_ceiling_m: zone.ctr_exemption_ceiling_m,
    geometry: zone.geometry,
    created_at: toOffsetTimestamp(zone.created_at),
    updated_at: toOffsetTimestamp(zone.updated_at),
  };
}
