import type { ZoneRestriction } from '@dfc/contracts';
import type { Polygonal } from '../geometry/polygonal.js';

/** A geo-zone after EUROCAE ED-269 (PRODUCT.md "Review"): where, how high, when, and who decides. */
export type { ZoneRestriction } from '@dfc/contracts';

export interface GeoZone {
  id: string;
  name: string;
  /** CTR, AIRPORT, MILITARY, NATURE, TEMPORARY or OTHER (`ZONE_TYPES`). */
  type: string;
  restriction: ZoneRestriction;
  /** Metres above ground; the zone spans [lower_limit_m, upper_limit_m]. */
  lower_limit_m: number;
  upper_limit_m: number;
  /** ISO 8601 date-times; the zone applies only between them. Null: always. */
  schedule: { start: string; end: string } | null;
  /** Who reviews requests touching the zone, e.g. LVNL, MIL, NATURE. */
  authority: string;
  /** CTR zones: exempt operators fly without review up to this height. */
  ctr_exemption_ceiling_m: number | null;
  /** Right-handed (exterior rings counter-clockwise). */
  geometry: Polygonal;
}

/** A checked zone before it has an id (create, replace, import). */
export type GeoZoneDraft = Omit<GeoZone, 'id'>;
