import type { FindingRecord, FlightRequestRecord, GeoZoneRecord, StatusHistoryRecord } from '@dfc/contracts';
import type { Api } from '../api';
import type { MapLayer } from '../map/map-view';
import type { ComponentChildren } from 'preact';
import { MapView } from '../map/map-view';
import { sharedVolumeLayers, sharedVolumeText } from '../map/shared-volumes';
import { isSpecShaped, volumeLayers, volumeText } from '../map/volumes';
import { padded, zoneLayers, zoneWindow, type BBox } from '../map/zones';
import { ErrorBanner, Link, Loading, StatusBadge, when } from '../ui/components';
import { useLoad } from '../ui/use-load';
import { useZonesAround, ZonesNearby } from './zones-around';

/** How far around a request's area its page shows zones: enough for the airspace a pilot would fly next to. */
const ZONES_AROUND_M = 2_000;

/** A request with its area, reloaded every `pollMs` so decisions made elsewhere show without a reload. */
export function useFlightRequest(api: Api, uuid: string, pollMs: number) {
  const request = useLoad(
    () => api.get<{ data: FlightRequestRecord }>(`/api/flight-requests/${encodeURIComponent(uuid)}?include_geometry=true`),
    [uuid],
    pollMs,
  );
  return { record: request.data?.data ?? null, error: request.error, reload: request.reload };
}

/** The request's status and what a reviewer or its operator reads first. */
export function RequestSummary({ record, statusLabel }: { record: FlightRequestRecord; statusLabel: string }) {
  return (
    <>
      <p>
        {statusLabel}: <StatusBadge status={record.status} />
      </p>
      <dl class="facts">
        <dt>Window</dt>
        <dd>
          {when(record.start_time)} – {when(record.end_time)}
        </dd>
        <dt>Maximum altitude</dt>
        <dd>{record.max_altitude} m</dd>
        {isSpecShaped(record) ? null : (
          <>
            <dt>Volumes</dt>
            <dd>
              <ol class="volume-list">
                {record.volumes.map((volume, index) => (
                  <li key={index}>{volumeText(volume)}</li>
                ))}
              </ol>
            </dd>
          </>
        )}
        <dt>Aircraft</dt>
        <dd>{record.aircraft_type}</dd>
        <dt>Purpose</dt>
        <dd>{record.purpose}</dd>
        <dt>Reference</dt>
        <dd>{record.uuid}</dd>
      </dl>
    </>
  );
}

/** Screening's findings: the zone behind each, its authority, and what it says (restriction, band, schedule). */
export function Findings({ findings }: { findings: FindingRecord[] }) {
  if (findings.length === 0) return <p>Screening found nothing.</p>;
  return (
    <ul class="findings">
      {findings.map((finding, index) => (
        <li key={index}>
          <strong>{finding.code}</strong>
          {finding.volume === undefined ? '' : ` · volume ${finding.volume + 1}`}
          {finding.zone_name ? ` · ${finding.zone_name}` : ''}
          {finding.authority ? ` (${finding.authority})` : ''}
          <br />
          {finding.message}
          {finding.conflict ? (
            <>
              <br />
              Shared volume: {sharedVolumeText(finding.conflict)}
            </>
          ) : null}
        </li>
      ))}
    </ul>
  );
}

export function History({ history }: { history: StatusHistoryRecord[] }) {
  return (
    <ol class="history">
      {history.map((entry, index) => (
        <li key={index}>
          <strong>{entry.status}</strong> · {when(entry.at)} · {entry.actor}
          {entry.reason ? ` · “${entry.reason}”` : ''}
        </li>
      ))}
    </ol>
  );
}

/** The volumes deconfliction findings say this flight shares with other approved flights, on the map. */
export function findingLayers(findings: FindingRecord[]): MapLayer[] {
  return sharedVolumeLayers(
    findings.flatMap((finding) => (finding.conflict === undefined ? [] : [finding.conflict])),
    'finding',
  );
}

/** A request's area as a map layer (the record carries it with `include_geometry=true`); a request of volumes is drawn by volume. */
export function areaLayers(record: FlightRequestRecord | null): MapLayer[] {
  if (record?.flight_area === undefined || !isSpecShaped(record)) return [];
  return [{ id: record.uuid, kind: 'area', data: record.flight_area, label: `Flight area, up to ${record.max_altitude} m` }];
}

/** The zones that raised the request's review items. */
export function raisingZoneIds(record: FlightRequestRecord | null): string[] {
  return (record?.review.items ?? []).flatMap((item) => (item.zone_id === null ? [] : [item.zone_id]));
}

/**
 * A request's page, for its reviewer or its operator: the area on the map
 * beside the status, the facts and the findings, then what the role does.
 * The zones around the area, active in its window, are on the map beneath it
 * (those that raised a review item drawn out) and listed with their limits;
 * `children` gets them too, to show each item's zone beside it.
 */
export function RequestPage({
  api,
  back,
  title,
  statusLabel,
  request,
  layers = [],
  children,
}: {
  api: Api;
  back: { to: string; label: string };
  title: string;
  statusLabel: string;
  request: { record: FlightRequestRecord | null; error: unknown };
  /** More of the request's own shapes for the map (a reviewer's competing volumes). */
  layers?: MapLayer[];
  children: (record: FlightRequestRecord, zones: GeoZoneRecord[]) => ComponentChildren;
}) {
  const { record, error } = request;
  const raised = raisingZoneIds(record);
  const around = useZonesAround(
    api,
    record === null ? null : padded(record.area.bbox as BBox, ZONES_AROUND_M),
    record === null ? null : zoneWindow(record.start_time, record.end_time),
    raised,
  );
  return (
    <section>
      <p>
        <Link to={back.to}>← {back.label}</Link>
      </p>
      <h1>{title}</h1>
      <ErrorBanner error={error} />
      {record === null ? (
        error ? null : (
          <Loading />
        )
      ) : (
        <div class="split">
          <div>
            <MapView
              label="The request's flight area and the zones around it"
              layers={[...areaLayers(record), ...volumeLayers(record), ...findingLayers(record.review.findings), ...layers]}
              context={zoneLayers(around.zones, new Set(raised))}
            />
            <ZonesNearby around={around} title="Zones around the area" />
          </div>
          <div>
            <RequestSummary record={record} statusLabel={statusLabel} />
            <h2>Findings</h2>
            <Findings findings={record.review.findings} />
            {children(record, around.zones)}
          </div>
        </div>
      )}
    </section>
  );
}
