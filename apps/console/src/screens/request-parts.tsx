import type { FindingRecord, FlightRequestRecord, StatusHistoryRecord } from '@dfc/contracts';
import type { Api } from '../api';
import type { MapLayer } from '../map/map-view';
import type { ComponentChildren } from 'preact';
import { MapView } from '../map/map-view';
import { ErrorBanner, Link, Loading, StatusBadge, when } from '../ui/components';
import { useLoad } from '../ui/use-load';

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
          {finding.zone_name ? ` · ${finding.zone_name}` : ''}
          {finding.authority ? ` (${finding.authority})` : ''}
          <br />
          {finding.message}
          {finding.conflict ? (
            <>
              <br />
              Shared volume: {when(finding.conflict.start_time)} – {when(finding.conflict.end_time)}, {finding.conflict.lower_altitude_m}–
              {finding.conflict.upper_altitude_m} m
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

/**
 * The volume a deconfliction finding says this flight shares with another approved flight, as the
 * box of the shared area (all the API gives: nothing identifies the other flight or its operator).
 */
export function findingLayers(findings: FindingRecord[]): MapLayer[] {
  return findings.flatMap((finding, index) => {
    const conflict = finding.conflict;
    if (conflict === undefined) return [];
    const [west, south, east, north] = conflict.bbox as [number, number, number, number];
    const ring = [
      [west, south],
      [east, south],
      [east, north],
      [west, north],
      [west, south],
    ];
    return [
      {
        id: `conflict-${index}`,
        kind: 'finding' as const,
        data: { type: 'Polygon', coordinates: [ring] },
        label: `Shared with another approved flight: ${conflict.lower_altitude_m}–${conflict.upper_altitude_m} m, ${when(conflict.start_time)} – ${when(conflict.end_time)}`,
      },
    ];
  });
}

/** A request's area as a map layer (the record carries it with `include_geometry=true`). */
export function areaLayers(record: FlightRequestRecord | null): MapLayer[] {
  if (record?.flight_area === undefined) return [];
  return [{ id: record.uuid, kind: 'area', data: record.flight_area, label: `Flight area, up to ${record.max_altitude} m` }];
}

/**
 * A request's page, for its reviewer or its operator: the area on the map
 * beside the status, the facts and the findings, then what the role does.
 */
export function RequestPage({
  back,
  title,
  statusLabel,
  request,
  children,
}: {
  back: { to: string; label: string };
  title: string;
  statusLabel: string;
  request: { record: FlightRequestRecord | null; error: unknown };
  children: (record: FlightRequestRecord) => ComponentChildren;
}) {
  const { record, error } = request;
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
          <MapView label="The request's flight area" layers={[...areaLayers(record), ...findingLayers(record.review.findings)]} />
          <div>
            <RequestSummary record={record} statusLabel={statusLabel} />
            <h2>Findings</h2>
            <Findings findings={record.review.findings} />
            {children(record)}
          </div>
        </div>
      )}
    </section>
  );
}
