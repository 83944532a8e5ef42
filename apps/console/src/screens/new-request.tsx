import { useMemo, useState } from 'preact/hooks';
import type { FlightRequestPreview, FlightRequestRecord } from '@dfc/contracts';
import { ApiError, type Api } from '../api';
import { MapView, type MapLayer } from '../map/map-view';
import { draftLayers, parsedJson, polygonText, volumeInput, type VolumeDraft } from '../map/volumes';
import { zoneLayers, zoneWindow, type BBox } from '../map/zones';
import { navigate } from '../router';
import { ErrorBanner, Field, StatusBadge } from '../ui/components';
import { inputValue, toUtc } from '../ui/format';
import { Findings, findingLayers } from './request-parts';
import { newVolume, VolumeEditor } from './volume-editor';
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

/** The earliest start and latest end of the drafted volumes (`datetime-local` values compare as text). */
function envelope(volumes: VolumeDraft[]): { start: string; end: string } {
  const starts = volumes.map((volume) => volume.start_time).filter((value) => value !== '');
  const ends = volumes.map((volume) => volume.end_time).filter((value) => value !== '');
  return { start: starts.sort()[0] ?? '', end: ends.sort().at(-1) ?? '' };
}

/**
 * A new request: the area drawn on the map (click the corners) or pasted as
 * GeoJSON, previewed with POST /api/flight-requests/preview (the outcome and
 * findings shown, nothing stored) before it is submitted. Or 4-D volumes,
 * each drawn the same way with its own band and window: the request's window
 * and ceiling are then theirs. The zones in the map's view, active in the
 * drafted window, are drawn beneath it and listed with their limits and
 * messages while the operator draws.
 */
export function NewRequest({ api, operatorUuid }: { api: Api; operatorUuid: string }) {
  const [draft, setDraft] = useState<Draft>(emptyDraft);
  const [points, setPoints] = useState<Array<[number, number]>>([]);
  const [error, setError] = useState<unknown>(null);
  const [preview, setPreview] = useState<FlightRequestPreview | null>(null);
  const [busy, setBusy] = useState(false);
  const [view, setView] = useState<BBox | null>(null);
  const [volumes, setVolumes] = useState<VolumeDraft[]>([]);
  /** The volume the map's clicks draw, and its corners so far; null: the clicks draw the flight area. */
  const [drawing, setDrawing] = useState<number | null>(null);
  const [corners, setCorners] = useState<Array<[number, number]>>([]);
  const span = volumes.length === 0 ? { start: draft.start_time, end: draft.end_time } : envelope(volumes);
  const around = useZonesAround(api, view, zoneWindow(toUtc(span.start), toUtc(span.end)));
  const set = (field: keyof Draft) => (event: { currentTarget: { value: string } }) => {
    setDraft({ ...draft, [field]: event.currentTarget.value });
    setPreview(null);
  };
  const area = volumes.length === 0 ? parsedJson(draft.flight_area) : undefined;
  const layers = useMemo<MapLayer[]>(
    () => [
      ...draftLayers(volumes, drawing),
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
    [draft.flight_area, preview, volumes, drawing],
  );

  const body = () => {
    if (area === null)
      throw new ApiError(422, 'The flight area is not valid JSON.', { flight_area: ['The flight area must be GeoJSON (a FeatureCollection).'] });
    const common = {
      operator_uuid: operatorUuid,
      operator_name: draft.operator_name,
      operator_email: draft.operator_email,
      operator_phone: draft.operator_phone,
      aircraft_type: draft.aircraft_type,
      purpose: draft.purpose,
    };
    // With volumes, the window, ceiling and area are theirs: the API derives the spec's fields from them.
    if (volumes.length > 0) return { ...common, volumes: volumes.map(volumeInput) };
    return {
      ...common,
      start_time: toUtc(draft.start_time),
      end_time: toUtc(draft.end_time),
      max_altitude: Number(draft.max_altitude),
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
    setPreview(null);
    if (drawing !== null) {
      const next = [...corners, point];
      setCorners(next);
      if (next.length >= 3) setVolumes(volumes.map((volume, index) => (index === drawing ? { ...volume, geometry: polygonText(next) } : volume)));
      return;
    }
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
            label={drawing === null ? 'Draw the flight area: click its corners' : `Draw volume ${drawing + 1}: click its corners`}
            layers={layers}
            context={zoneLayers(around.zones)}
            onPick={addPoint}
            onView={setView}
            reveal={drawing}
          />
          {drawing !== null ? (
            <p class="hint" role="status">
              Click volume {drawing + 1}'s corners on the map ({corners.length} so far), or paste a GeoJSON Polygon in its area field.
            </p>
          ) : volumes.length === 0 ? (
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
          ) : null}
          <ZonesNearby around={around} title="Zones in view" />
        </div>
        <form onSubmit={submit} noValidate>
          <ErrorBanner error={error} paths={volumes.length > 0} />
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
            {volumes.length === 0 ? (
              <>
                <Field id="start-time" label="Start (UTC)" name="start_time" error={error}>
                  {(control) => <input {...control} type="datetime-local" value={draft.start_time} onInput={set('start_time')} />}
                </Field>
                <Field id="end-time" label="End (UTC)" name="end_time" error={error}>
                  {(control) => <input {...control} type="datetime-local" value={draft.end_time} onInput={set('end_time')} />}
                </Field>
                <Field id="max-altitude" label="Maximum altitude (m)" name="max_altitude" error={error}>
                  {(control) => <input {...control} type="number" min={1} value={draft.max_altitude} onInput={set('max_altitude')} />}
                </Field>
              </>
            ) : null}
          </div>
          <Field id="purpose" label="Purpose" name="purpose" error={error}>
            {(control) => <input {...control} value={draft.purpose} onInput={set('purpose')} />}
          </Field>
          {volumes.length === 0 ? (
            <Field id="flight-area" label="Flight area (GeoJSON FeatureCollection)" name="flight_area" error={error}>
              {(control) => <textarea {...control} rows={6} spellcheck={false} value={draft.flight_area} onInput={set('flight_area')} />}
            </Field>
          ) : (
            <p class="hint">The request's window, ceiling and area are its volumes': their earliest start, latest end, highest limit and areas.</p>
          )}
          <h2>4-D volumes</h2>
          <VolumeEditor
            volumes={volumes}
            drawing={drawing}
            error={error}
            onChange={(next) => {
              setVolumes(next);
              setPreview(null);
            }}
            onDraw={(index) => {
              setDrawing(index);
              setCorners([]);
            }}
          />
          <button
            type="button"
            onClick={() => {
              setVolumes([...volumes, newVolume(draft.start_time, draft.end_time, draft.max_altitude)]);
              setDrawing(volumes.length);
              setCorners([]);
              setPreview(null);
            }}
          >
            Add a volume
          </button>
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
