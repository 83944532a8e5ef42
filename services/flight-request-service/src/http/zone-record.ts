import { toOffsetTimestamp, type GeoZoneRecord } from '@dfc/contracts';
import { activeIntervals } from '../domain/zones/applicability.js';
import type { DayMoment, LangText } from '../domain/zones/geo-zone.js';
import type { ZoneDoc } from '../store/zone-store.js';
import { centreOf } from '../use-cases/zones/manage-zones.js';

/** Picks the language a client prefers among those offered (koa's `ctx.acceptsLanguages`, which reads Accept-Language). */
export type LanguageChooser = (offered: string[]) => string | false;

/** A zone as the API shows it: multilingual texts in the preferred language (and all of them), limits as published. */
export function zoneRecord(zone: ZoneDoc, choose: LanguageChooser, window: { from: number; to: number } | null = null): GeoZoneRecord {
  const published = zone.published;
  const pick = (texts: LangText[]): string | null => {
    if (texts.length === 0) return null;
    const lang = choose(texts.map((text) => text.lang));
    return (texts.find((text) => text.lang === lang) ?? texts[0])?.text ?? null;
  };
  const record: GeoZoneRecord = {
    id: zone.id,
    name: published ? (pick(published.names) ?? zone.name) : zone.name,
    type: zone.type as GeoZoneRecord['type'],
    restriction: zone.restriction,
    lower_limit_m: zone.lower_limit_m,
    upper_limit_m: zone.upper_limit_m,
    schedule: zone.schedule,
    authority: zone.authority,
    ctr_exemption_ceiling_m: zone.ctr_exemption_ceiling_m,
    geometry: zone.geometry,
    identifier: zone.identifier,
    country: zone.country,
    status: zone.deleted_at === null ? 'published' : 'retired',
    version: zone.version,
    dataset_id: zone.dataset_id,
    message: published ? pick(published.messages) : null,
    volumes: zone.volumes.map((volume) => ({
      lower: volume.lower,
      upper: volume.upper,
      ...(zone.volumes.length > 1 ? { geometry: volume.geometry } : {}),
    })),
    applicability: zone.applicability.permanent
      ? { permanent: true, periods: [] }
      : {
          permanent: false,
          periods: zone.applicability.periods.map((period) => ({
            start: period.start,
            end: period.end,
            daily: period.daily.map((daily) => ({ days: daily.days, start: momentRecord(daily.start), end: momentRecord(daily.end) })),
          })),
        },
    published: published
      ? {
          format: published.format,
          published_type: published.published_type,
          variant: published.variant,
          names: published.names,
          messages: published.messages,
          reasons: published.reasons,
          other_reason_info: published.other_reason_info,
          restriction_conditions: published.restriction_conditions,
          region: published.region,
          regulation_exemption: published.regulation_exemption,
          u_space_class: published.u_space_class,
          extended_properties: published.extended_properties,
          data_source: published.data_source,
          authorities: published.authorities.map((authority) => ({
            name: pick(authority.name),
            names: authority.name,
            service: pick(authority.service),
            contact_name: pick(authority.contact_name),
            site_url: authority.site_url,
            email: authority.email,
            phone: authority.phone,
            purpose: authority.purpose,
            interval_before: authority.interval_before,
          })),
        }
      : null,
    created_at: toOffsetTimestamp(zone.created_at),
    updated_at: toOffsetTimestamp(zone.updated_at),
  };
  if (window) {
    record.active_intervals = activeIntervals(zone.applicability, centreOf(zone), window.from, window.to).map(([start, end]) => ({
      start: toOffsetTimestamp(new Date(start)),
      end: toOffsetTimestamp(new Date(end)),
    }));
  }
  return record;
}

function momentRecord(moment: DayMoment): { time?: string; event?: string } {
  return 'time' in moment ? { time: moment.time } : { event: moment.event };
}
