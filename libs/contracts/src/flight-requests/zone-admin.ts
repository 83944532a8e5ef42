import { Type, type Static } from '@sinclair/typebox';
import { Int32, PageQuery } from '../schema-helpers.js';
import { ZONE_RESTRICTIONS, ZONE_TYPES } from './zones.js';

/** GET /api/zones: optional filters by type and restriction, Laravel pagination. */
export const ZoneListQuery = Type.Object({
  type: Type.Optional(Type.Unsafe<string>({ type: 'string', enum: [...ZONE_TYPES] })),
  restriction: Type.Optional(Type.Unsafe<string>({ type: 'string', enum: [...ZONE_RESTRICTIONS] })),
  ...PageQuery,
});
export type ZoneListQuery = Static<typeof ZoneListQuery>;

/** POST /api/zones/import → 200 `{ data: ... }`: how many zones were new and how many replaced. */
export const ZoneImportResult = Type.Object(
  { created: Int32({ minimum: 0 }), updated: Int32({ minimum: 0 }), total: Int32({ minimum: 0 }) },
  { $id: 'ZoneImportResult' },
);
export type ZoneImportResult = Static<typeof ZoneImportResult>;
