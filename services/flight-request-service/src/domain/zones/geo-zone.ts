import type { ZoneRestriction } from '@dfc/contracts';
import type { Polygonal } from '../geometry/polygonal.js';

/** A geo-zone after EUROCAE ED-269 / ED-318 (PRODUCT.md "Review"): where, how high, when, and who decides. */
export type { ZoneRestriction } from '@dfc/contracts';

/** The surface a height is measured from: ground, mean sea level (EGM96) or the WGS-84 ellipsoid. */
export type VerticalReference = 'AGL' | 'AMSL' | 'WGS84';
export type VerticalUnit = 'm' | 'ft';

/** A limit as the authority published it; `value` in `uom` above `reference`. */
export interface VerticalLimit {
  value: number;
  reference: VerticalReference;
  uom: VerticalUnit;
}

/** One block of airspace: an area between two limits (ED-269 zones may have several). */
export interface ZoneVolume {
  geometry: Polygonal;
  lower: VerticalLimit;
  upper: VerticalLimit;
}

export const WEEKDAYS = ['MON', 'TUE', 'WED', 'THU', 'FRI', 'SAT', 'SUN'] as const;
export type Weekday = (typeof WEEKDAYS)[number];
export const DAYLIGHT_EVENTS = ['BMCT', 'SR', 'SS', 'EECT'] as const;
export type DaylightEvent = (typeof DAYLIGHT_EVENTS)[number];

/** A time of day with its UTC offset (`08:00:00+01:00`), or a daylight event at the zone's position. */
export type DayMoment = { time: string; seconds: number; offset_minutes: number } | { event: DaylightEvent };

/** Active on the given weekdays (`ANY` is all seven) from `start` to `end`; an end at or before the start is on the next day. */
export interface DailyPeriod {
  days: Weekday[];
  start: DayMoment;
  end: DayMoment;
}

/** Between two instants (either open), and within them only in the daily periods when there are any. */
export interface TimePeriod {
  start: string | null;
  end: string | null;
  daily: DailyPeriod[];
}

/** Permanent, or only in its periods. Never "unknown": what cannot be read is refused at import. */
export type Applicability = { permanent: true } | { permanent: false; periods: TimePeriod[] };

/** A text in several languages, each as published (`lang` as the authority wrote it, e.g. `de-CH`). */
export interface LangText {
  text: string;
  lang: string;
}

/** ED-269 / ED-318 `zoneAuthority`: who to contact about the zone and for what. */
export interface ZoneAuthorityContact {
  name: LangText[];
  service: LangText[];
  contact_name: LangText[];
  site_url: string | null;
  email: string | null;
  phone: string | null;
  /** AUTHORIZATION, NOTIFICATION or INFORMATION. */
  purpose: string | null;
  /** ISO 8601 duration: how long before the flight the authority must be asked. */
  interval_before: string | null;
}

/** What the authority published beyond the fields screening needs, kept as published. */
export interface PublishedZone {
  format: 'ED-269' | 'ED-318';
  /** The published type (ED-318 `type`, ED-269 `restriction`), e.g. REQ_AUTHORIZATION. */
  published_type: string;
  /** COMMON or CUSTOMIZED (ED-318 `variant`, ED-269 `type`). */
  variant: string | null;
  names: LangText[];
  messages: LangText[];
  reasons: string[];
  other_reason_info: LangText[];
  restriction_conditions: string | null;
  region: number | null;
  regulation_exemption: string | null;
  /** ED-269 `uSpaceClass` (EUROCONTROL or CORUS). */
  u_space_class: string | null;
  extended_properties: Record<string, unknown> | null;
  /** ED-269 / ED-318 `dataSource`: who made this version of the zone, and when. */
  data_source: Record<string, unknown> | null;
  authorities: ZoneAuthorityContact[];
}

export interface GeoZone {
  id: string;
  name: string;
  /** CTR, AIRPORT, MILITARY, NATURE, TEMPORARY or OTHER (`ZONE_TYPES`); OTHER for published zones. */
  type: string;
  restriction: ZoneRestriction;
  /** Metres above each limit's reference, rounded outwards; for several volumes, the lowest and the highest. */
  lower_limit_m: number;
  upper_limit_m: number;
  /** The own format's single window (ISO 8601 date-times); null when permanent or published with `applicability`. */
  schedule: { start: string; end: string } | null;
  /** Who reviews requests touching the zone, e.g. LVNL, MIL, NATURE. */
  authority: string;
  /** CTR zones: exempt operators fly without review up to this height. */
  ctr_exemption_ceiling_m: number | null;
  /** Right-handed (exterior rings counter-clockwise); for several volumes, all of their areas. */
  geometry: Polygonal;
  /** The published ED identifier and ISO 3166 alpha-3 country; null for zones of the own format without them. */
  identifier: string | null;
  country: string | null;
  volumes: ZoneVolume[];
  applicability: Applicability;
  published: PublishedZone | null;
  /** The dataset issue the zone came with (null: created one by one). */
  dataset_id: string | null;
}

/** A checked zone before it has an id (create, replace, import). */
export type GeoZoneDraft = Omit<GeoZone, 'id'>;

/**
 * What a zone of the own format (metres above ground, at most one window) holds
 * beside its fields: one volume, permanent or in its window, nothing published.
 * Also what a zone stored before published zones existed reads as.
 */
export function ownFormatParts(
  fields: Pick<GeoZone, 'lower_limit_m' | 'upper_limit_m' | 'schedule' | 'geometry'>,
): Pick<GeoZone, 'identifier' | 'country' | 'volumes' | 'applicability' | 'published' | 'dataset_id'> {
  const { schedule } = fields;
  return {
    identifier: null,
    country: null,
    volumes: [
      {
        geometry: fields.geometry,
        lower: { value: fields.lower_limit_m, reference: 'AGL', uom: 'm' },
        upper: { value: fields.upper_limit_m, reference: 'AGL', uom: 'm' },
      },
    ],
    applicability: schedule ? { permanent: false, periods: [{ start: schedule.start, end: schedule.end, daily: [] }] } : { permanent: true },
    published: null,
    dataset_id: null,
  };
}
