import { useMemo, useState } from 'preact/hooks';
import type { FlightRequestPreview, FlightRequestRecord } from '@dfc/contracts';
import { ApiError, type Api } from '../api';
import { MapView, type MapLayer } from '../map/map-view';
import { zoneLayers, zoneWindow, type BBox } from '../map/zones';
import { navigate } from '../router';
import { ErrorBanner, Field, StatusBadge } from '../ui/components';
import { inputValue, toUtc } from '../ui/format';
import { Findings, findingLayers } from './request-parts';
import { useZonesAround, ZonesNearby } from './zones-around';

interface Draft {
  operator_name: string;
  operator_email: string;
  operator_phone: string;
  start_time: string;
  end_time: string;
  max_altitude: string;
  aircraft_type: string;
  purpose: string;
  flight_area: string;
}

function emptyDraft(): Draft {
  const start = new Date(Math.ceil(Date.now() / 3_600_000) * 3_600_000 + 3_600_000);
  return {
    operator_name: '',
    operator_email: '',
    operator_phone: '',
    start_time: inputValue(start),
    end_time: inputValue(new Date(start.getTime() + 3_600_000)),
    max_altitude: '100',
    aircraft_type: '',
    purpose: '',
    flight_area: '',
  };
}

/** A closed ring of the clicked points, as the one feature of a FeatureCollection. */
function drawnArea(points: Array<[number, number]>): string {
  if (points.length < 3) return '';
  const ring = [...points, points[0] as [number, number]];
  return JSON.stringify(
    { type: 'FeatureCollection', features: [{ type: 'Feature', properties: {}, geometry: { type: 'Polygon', coordinates: [ring] } }] },
    null,
    1,
  );
}

function parsedArea(text: string): unknown {
  try {
    return text.trim() === '' ? undefined : (JSON.parse(text) as unknown);
  } catch {
    return null;
  }
}

/**
 * A new request: the area drawn on the map (click the corners) or pasted as
 * GeoJSON, previewed with POST /api/flight-requests/preview (the outcome and
 * findings shown, nothing stored) before it is submitted. The zones in the
 * map's view, active in the drafted window, are drawn beneath it and listed
 * with their limits and messages while the operator draws.
 */
export function NewRequest({ api, operatorUuid }: { api: Api; operatorUuid: string }) {
  const [draft, setDraft] = useState<Draft>(emptyDraft);
  const [points, setPoints] = useState<Array<[number, number]>>([]);
  const [error, setError] = useState<unknown>(null);
  const [preview, setPreview] = useState<FlightRequestPreview | null>(null);
  const [busy, setBusy] = useState(false);
  const [view, setView] = useState<BBox | null>(null);
  const around = useZonesAround(api, view, zoneWindow(toUtc(draft.start_time), toUtc(draft.end_time)));
  const set = (field: keyof Draft) => (event: { currentTarget: { value: string } }) => {
    setDraft({ ...draft, [field]: event.currentTarget.value });
    setPreview(null);
  };
  const area = parsedArea(draft.flight_area);
  const layers = useMemo<MapLayer[]>(
    () => [
      ...(area && typeof area === 'object'
        ? [
            {
              id: 'draft',
              kind: preview ? ('preview' as const) : ('draft' as const),
              data: area as GeoJSON.GeoJsonObject,
              label: 'The new flight area',
            },
          ]
        : []),
      ...findingLayers(preview?.findings ?? []),
    ],
    [draft.flight_area, preview],
  );

  const body = () => {
    if (area === null)
      throw new ApiError(422, 'The flight area is not valid JSON.', { flight_area: ['The flight area must be GeoJSON (a FeatureCollection).'] });
    return {
      operator_uuid: operatorUuid,
      operator_name: draft.operator_name,
      operator_email: draft.operator_email,
      operator_phone: draft.operator_phone,
      start_time: toUtc(draft.start_time),
      end_time: toUtc(draft.end_time),
      max_altitude: Number(draft.max_altitude),
      aircraft_type: draft.aircraft_type,
      purpose: draft.purpose,
      flight_area: area,
    };
  };
  const run = async (action: () => Promise<void>) => {
    setBusy(true);
    setError(null);
    try {
      await action();
    } catch (failure) {
      setError(failure);
    } finally {
      setBusy(false);
    }
  };
  const doPreview = () => run(async () => setPreview((await api.post<{ data: FlightRequestPreview }>('/api/flight-requests/preview', body())).data));
  const submit = (event: Event) => {
    event.preventDefault();
    void run(async () => {
      const created = await api.post<{ data: FlightRequestRecord }>('/api/flight-requests', body());
      navigate(`/requests/${created.data.uuid}`);
    });
  };
  const addPoint = (point: [number, number]) => {
    const next = [...points, point];
    setPoints(next);
    if (next.length >= 3) setDraft({ ...draft, flight_area: drawnArea(next) });
    setPreview(null);
  };

  return (
    <section>
      <h1>New flight request</h1>
      <div class="split">
        <div>
          <MapView
            label="Draw the flight area: click its corners"
            layers={layers}
            context={zoneLayers(around.zones)}
            onPick={addPoint}
            onView={setView}
          />
          <p class="hint">
            Click the area's corners on the map ({points.length} so far), or paste GeoJSON below.{' '}
            <button
              type="button"
              onClick={() => {
                setPoints([]);
                setDraft({ ...draft, flight_area: '' });
              }}
            >
              Clear the area
            </button>
          </p>
          <ZonesNearby around={around} title="Zones in view" />
        </div>
        <form onSubmit={submit} noValidate>
          <ErrorBanner error={error} />
          <div class="grid">
            <Field id="operator-name" label="Pilot name" name="operator_name" error={error}>
              {(control) => <input {...control} value={draft.operator_name} onInput={set('operator_name')} />}
            </Field>
            <Field id="operator-email" label="Pilot email" name="operator_email" error={error}>
              {(control) => <input {...control} type="email" value={draft.operator_email} onInput={set('operator_email')} />}
            </Field>
            <Field id="operator-phone" label="Pilot phone" name="operator_phone" error={error}>
              {(control) => <input {...control} type="tel" value={draft.operator_phone} onInput={set('operator_phone')} />}
            </Field>
            <Field id="aircraft-type" label="Aircraft type" name="aircraft_type" error={error}>
              {(control) => <input {...control} value={draft.aircraft_type} onInput={set('aircraft_type')} />}
            </Field>
            <Field id="start-time" label="Start (UTC)" name="start_time" error={error}>
              {(control) => <input {...control} type="datetime-local" value={draft.start_time} onInput={set('start_time')} />}
            </Field>
            <Field id="end-time" label="End (UTC)" name="end_time" error={error}>
              {(control) => <input {...control} type="datetime-local" value={draft.end_time} onInput={set('end_time')} />}
            </Field>
            <Field id="max-altitude" label="Maximum altitude (m)" name="max_altitude" error={error}>
              {(control) => <input {...control} type="number" min={1} value={draft.max_altitude} onInput={set('max_altitude')} />}
            </Field>
          </div>
          <Field id="purpose" label="Purpose" name="purpose" error={error}>
            {(control) => <input {...control} value={draft.purpose} onInput={set('purpose')} />}
          </Field>
          <Field id="flight-area" label="Flight area (GeoJSON FeatureCollection)" name="flight_area" error={error}>
            {(control) => <textarea {...control} rows={6} spellcheck={false} value={draft.flight_area} onInput={set('flight_area')} />}
          </Field>
          <div class="actions">
            <button type="button" disabled={busy} onClick={() => void doPreview()}>
              Preview
            </button>
            <button type="submit" disabled={busy}>
              Submit request
            </button>
          </div>
          {preview ? <PreviewResult preview={preview} /> : null}
        </form>
      </div>
    </section>
  );
}

function PreviewResult({ preview }: { preview: FlightRequestPreview }) {
  return (
    <section class="preview" aria-labelledby="preview-title" aria-live="polite">
      <h2 id="preview-title">
        Preview: this request would be <StatusBadge status={preview.status} />
      </h2>
      <p>
        Area {(preview.area.area_m2 / 10_000).toFixed(2)} ha in {preview.area.feature_count} feature(s).
        {preview.review_items.length ? ` Review by: ${preview.review_items.map((item) => item.authority).join(', ')}.` : ''}
      </p>
      <Findings findings={preview.findings} />
    </section>
  );
}
