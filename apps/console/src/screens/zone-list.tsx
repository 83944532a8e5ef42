import { useMemo, useState } from 'preact/hooks';
import type { GeoZoneRecord } from '@dfc/contracts';
import { query, type Api, type Page } from '../api';
import { MapView, type MapLayer } from '../map/map-view';
import { bandsText, zoneLayers } from '../map/zones';
import { ErrorBanner, TableWrap, Field, Loading, Pager, when } from '../ui/components';
import { useLoad } from '../ui/use-load';

const PER_PAGE = 20;
const TYPES = ['CTR', 'AIRPORT', 'MILITARY', 'NATURE', 'TEMPORARY', 'OTHER'];
const RESTRICTIONS = ['PROHIBITED', 'REQ_AUTHORISATION', 'CONDITIONAL', 'NO_RESTRICTION'];

/** The zones, a page at a time, on the map and in a table. */
export function ZoneList({ api }: { api: Api }) {
  const [page, setPage] = useState(1);
  const [type, setType] = useState('');
  const [restriction, setRestriction] = useState('');
  const zones = useLoad(
    () => api.get<Page<GeoZoneRecord>>(`/api/zones${query({ type, restriction, page, per_page: PER_PAGE })}`),
    [type, restriction, page],
  );
  const layers = useMemo<MapLayer[]>(() => zoneLayers(zones.data?.data ?? []), [zones.data]);
  return (
    <section>
      <h1>Zones</h1>
      <div class="filters">
        <Field id="zone-type" label="Type" name="type" error={zones.error}>
          {(control) => (
            <select {...control} value={type} onChange={(e) => (setPage(1), setType(e.currentTarget.value))}>
              <option value="">Any</option>
              {TYPES.map((value) => (
                <option key={value}>{value}</option>
              ))}
            </select>
          )}
        </Field>
        <Field id="zone-restriction" label="Restriction" name="restriction" error={zones.error}>
          {(control) => (
            <select {...control} value={restriction} onChange={(e) => (setPage(1), setRestriction(e.currentTarget.value))}>
              <option value="">Any</option>
              {RESTRICTIONS.map((value) => (
                <option key={value}>{value}</option>
              ))}
            </select>
          )}
        </Field>
      </div>
      <ErrorBanner error={zones.error} />
      <div class="split">
        <MapView label="Zones of this page" layers={layers} />
        <div>
          {zones.data === null ? (
            zones.error ? null : (
              <Loading />
            )
          ) : (
            <>
              <TableWrap label="Zones table">
                <table>
                  <caption>Zones</caption>
                  <thead>
                    <tr>
                      <th scope="col">Name</th>
                      <th scope="col">Restriction</th>
                      <th scope="col">Band</th>
                      <th scope="col">Authority</th>
                      <th scope="col">Schedule</th>
                    </tr>
                  </thead>
                  <tbody>
                    {zones.data.data.map((zone) => (
                      <tr key={zone.id}>
                        <td>{zone.name}</td>
                        <td>{zone.restriction}</td>
                        <td>{bandsText(zone)}</td>
                        <td>{zone.authority}</td>
                        <td>{zone.schedule ? `${when(zone.schedule.start)} – ${when(zone.schedule.end)}` : 'Always'}</td>
                      </tr>
                    ))}
                  </tbody>
                </table>
              </TableWrap>
              <Pager
                label="Zones"
                page={zones.data.meta.current_page}
                lastPage={zones.data.meta.last_page}
                total={zones.data.meta.total}
                onPage={setPage}
              />
            </>
          )}
        </div>
      </div>
    </section>
  );
}
