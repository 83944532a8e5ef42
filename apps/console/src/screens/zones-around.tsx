import type { GeoZoneRecord } from '@dfc/contracts';
import { ApiError, type Api, type Page } from '../api';
import { activityText, bandsText, contactText, zonesPath, ZONES_PER_PAGE, type BBox, type ZoneWindow } from '../map/zones';
import { ErrorBanner } from '../ui/components';
import { useLoad } from '../ui/use-load';

export interface ZonesAround {
  zones: GeoZoneRecord[];
  /** How many zones the box holds; more than `zones.length` when they fill more than a page. */
  total: number;
  error: unknown;
}

/**
 * The published zones in `box` (active in `window`, when there is one), from `GET /api/zones`, plus
 * the zones named in `ids` (those that raised a review item) when the page of the box left them out.
 * Null box: nothing asked yet.
 */
export function useZonesAround(api: Api, box: BBox | null, window: ZoneWindow | null, ids: string[] = []): ZonesAround {
  const path = box === null ? null : zonesPath(box, window);
  const named = [...new Set(ids)].sort();
  const loaded = useLoad(async () => {
    if (path === null) return { zones: [], total: 0 };
    const page = await api.get<Page<GeoZoneRecord>>(path);
    const missing = named.filter((id) => !page.data.some((zone) => zone.id === id));
    const extra = (await Promise.all(missing.map((id) => zoneById(api, id, window)))).filter((zone): zone is GeoZoneRecord => zone !== null);
    return { zones: [...page.data, ...extra], total: page.meta.total + extra.length };
  }, [path, named.join(',')]);
  return { zones: loaded.data?.zones ?? [], total: loaded.data?.total ?? 0, error: loaded.error };
}

/** A zone by id; null once it is gone (retired since it raised the item: the item's message still says what it was). */
async function zoneById(api: Api, id: string, window: ZoneWindow | null): Promise<GeoZoneRecord | null> {
  const search = window === null ? '' : `?from=${encodeURIComponent(window.from)}&to=${encodeURIComponent(window.to)}`;
  try {
    return (await api.get<{ data: GeoZoneRecord }>(`/api/zones/${encodeURIComponent(id)}${search}`)).data;
  } catch (error) {
    if (error instanceof ApiError && error.status === 404) return null;
    throw error;
  }
}

/** One zone as published: restriction, each volume's band with its reference and unit, when it applies, its message and whom to ask. */
export function ZoneFacts({ zone, heading = 'h3' }: { zone: GeoZoneRecord; heading?: 'h3' | 'h4' }) {
  const Heading = heading;
  return (
    <article class="zone" aria-label={`Zone ${zone.name}`}>
      <Heading>
        {zone.name} <small>({zone.restriction})</small>
      </Heading>
      <dl class="facts">
        <dt>Limits</dt>
        <dd>{bandsText(zone)}</dd>
        <dt>Applies</dt>
        <dd>{activityText(zone)}</dd>
        {zone.message ? (
          <>
            <dt>Message</dt>
            <dd>{zone.message}</dd>
          </>
        ) : null}
        {zone.published?.restriction_conditions ? (
          <>
            <dt>Conditions</dt>
            <dd>{zone.published.restriction_conditions}</dd>
          </>
        ) : null}
        <dt>Authority</dt>
        <dd>{contactText(zone)}</dd>
        {zone.identifier ? (
          <>
            <dt>Identifier</dt>
            <dd>
              {zone.identifier}
              {zone.country ? ` (${zone.country})` : ''}
            </dd>
          </>
        ) : null}
      </dl>
    </article>
  );
}

/** The zones around, each with its limits and message; says so when the box holds more than one page. */
export function ZonesNearby({ around, title }: { around: ZonesAround; title: string }) {
  const { zones, total, error } = around;
  return (
    <details class="zones-around">
      <summary>
        {title}: {zones.length === 0 ? 'none' : total > zones.length ? `${zones.length} of ${total} shown` : zones.length}
      </summary>
      <ErrorBanner error={error} />
      {total > ZONES_PER_PAGE ? <p class="hint">Only the first {ZONES_PER_PAGE} are listed and drawn.</p> : null}
      <ul class="zone-list">
        {zones.map((zone) => (
          <li key={zone.id}>
            <ZoneFacts zone={zone} />
          </li>
        ))}
      </ul>
    </details>
  );
}
