import { Type, type Static } from '@sinclair/typebox';
import { Int32, Nullable, PageQuery } from '../schema-helpers.js';
import { ZONE_RESTRICTIONS, ZONE_TYPES } from './zones.js';

/** GET /api/zones: optional filters by type and restriction, area and time window; Laravel pagination. */
export const ZoneListQuery = Type.Object({
  type: Type.Optional(Type.Unsafe<string>({ type: 'string', enum: [...ZONE_TYPES] })),
  restriction: Type.Optional(Type.Unsafe<string>({ type: 'string', enum: [...ZONE_RESTRICTIONS] })),
  bbox: Type.Optional(
    Type.String({
      pattern: '^-?\\d+(\\.\\d+)?(,-?\\d+(\\.\\d+)?){3}$',
      description: 'minLon,minLat,maxLon,maxLat: zones whose area meets the box',
      examples: ['4.6,52.2,5.0,52.5'],
    }),
  ),
  from: Type.Optional(Type.String({ format: 'date-time', description: 'with to: zones active in [from, to), each with its active intervals' })),
  to: Type.Optional(Type.String({ format: 'date-time' })),
  status: Type.Optional(
    Type.Unsafe<'published' | 'retired'>({ type: 'string', enum: ['published', 'retired'], description: 'retired: admins only' }),
  ),
  ...PageQuery,
});
export type ZoneListQuery = Static<typeof ZoneListQuery>;

/** GET /api/zones/{id}: with from and to, the zone's active intervals in that window. */
export const ZoneQuery = Type.Object({ from: ZoneListQuery.properties.from, to: ZoneListQuery.properties.to });
export type ZoneQuery = Static<typeof ZoneQuery>;

const ImportedDataset = Type.Object(
  {
    id: Type.String({ description: '`ED-318:<provider>` or `ED-269:<countries>`: the same dataset across its issues' }),
    issued: Nullable(Type.String()),
    valid_from: Nullable(Type.String()),
    valid_to: Nullable(Type.String()),
    already_imported: Type.Boolean({ description: 'true: this very issue was imported before, and nothing changed' }),
  },
  { description: 'ED-269 / ED-318 only: the dataset issue the document is' },
);

/**
 * POST /api/zones/import → 200 `{ data: ... }`: how many zones were new,
 * replaced, left as they were and retired (a newer issue no longer listing them).
 */
export const ZoneImportResult = Type.Object(
  {
    format: Type.Unsafe<'own' | 'ED-269' | 'ED-318'>({ type: 'string', enum: ['own', 'ED-269', 'ED-318'] }),
    dataset: Type.Union([ImportedDataset, Type.Null()]),
    created: Int32({ minimum: 0 }),
    updated: Int32({ minimum: 0 }),
    unchanged: Int32({ minimum: 0 }),
    retired: Int32({ minimum: 0 }),
    total: Int32({ minimum: 0 }),
  },
  { $id: 'ZoneImportResult' },
);
export type ZoneImportResult = Static<typeof ZoneImportResult>;
