import type { Altitude, FlightRequestRecord, FlightVolumeRecord } from '@dfc/contracts';
import type { Feature, FeatureCollection, Geometry, Position } from 'geojson';
import { inputValue, toUtc, when } from '../ui/format';
import type { MapLayer } from './layers';

const numbers = new Intl.NumberFormat('en-GB', { maximumFractionDigits: 1 });

/** A band's limit as F3548 writes it: `80 m AGL`, `1,500 ft AMSL`. */
export function altitudeText(altitude: Altitude): string {
  return `${numbers.format(altitude.value)} ${altitude.units} ${altitude.reference}`;
}

/** A volume's band and window: `60 m AGL – 100 m AGL, 3 Dec 2026, 10:00 UTC – 3 Dec 2026, 10:30 UTC`. */
export function volumeText(volume: Pick<FlightVolumeRecord, 'altitude_lower' | 'altitude_upper' | 'start_time' | 'end_time'>): string {
  return `${altitudeText(volume.altitude_lower)} – ${altitudeText(volume.altitude_upper)}, ${when(volume.start_time)} – ${when(volume.end_time)}`;
}

/**
 * Whether a request is the one volume the spec's fields form: its area from the ground (0 m AGL) to
 * `max_altitude` m AGL over the request's window. Such a request is shown, and amended, by those fields.
 */
export function isSpecShaped(record: Pick<FlightRequestRecord, 'volumes' | 'start_time' | 'end_time' | 'max_altitude'>): boolean {
  const [only, ...others] = record.volumes;
  if (only === undefined) return true;
  const aboveGround = (altitude: Altitude, value: number) => altitude.reference === 'AGL' && altitude.units === 'm' && altitude.value === value;
  return (
    others.length === 0 &&
    aboveGround(only.altitude_lower, 0) &&
    aboveGround(only.altitude_upper, record.max_altitude) &&
    Date.parse(only.start_time) === Date.parse(record.start_time) &&
    Date.parse(only.end_time) === Date.parse(record.end_time)
  );
}

type VolumedRecord = Pick<FlightRequestRecord, 'uuid' | 'volumes' | 'flight_area' | 'start_time' | 'end_time' | 'max_altitude'>;

/**
 * A request's volumes on the map, each its features of `flight_area` (the record names them by index)
 * labelled with its band and window. A request the spec's fields describe is its area: the area layer draws it.
 */
export function volumeLayers(record: VolumedRecord): MapLayer[] {
  const features = (record.flight_area?.features ?? []) as Feature[];
  if (isSpecShaped(record) || features.length === 0) return [];
  return record.volumes.map((volume, index) => {
    const data: FeatureCollection = { type: 'FeatureCollection', features: volume.features.flatMap((at) => features[at] ?? []) };
    return { id: `${record.uuid}-volume-${index}`, kind: 'volume' as const, data, label: `Volume ${index + 1}: ${volumeText(volume)}` };
  });
}

/** One volume as the operator drafts it: corners clicked on the map (or pasted), a band, a window (`datetime-local`, UTC). */
export interface VolumeDraft {
  geometry: string;
  /** A Point geometry's circle radius in metres (empty for a polygon). */
  radius_m: string;
  lower: { value: string; reference: Altitude['reference']; units: Altitude['units'] };
  upper: { value: string; reference: Altitude['reference']; units: Altitude['units'] };
  start_time: string;
  end_time: string;
}

/** A closed Polygon ring of the clicked corners, as GeoJSON text; empty under three corners. */
export function polygonText(points: Array<[number, number]>): string {
  if (points.length < 3) return '';
  return JSON.stringify({ type: 'Polygon', coordinates: [[...points, points[0] as [number, number]]] });
}

/** Parsed GeoJSON, undefined for empty text, null for text that is not JSON (the API then names the field). */
export function parsedJson(text: string): unknown {
  if (text.trim() === '') return undefined;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return null;
  }
}

/** A drafted volume as the submission's `volumes[]` item; what does not parse is sent as it is, for the API's 422 to name. */
export function volumeInput(draft: VolumeDraft): Record<string, unknown> {
  const altitude = (limit: VolumeDraft['lower']) => ({
    value: limit.value.trim() === '' ? null : Number(limit.value),
    reference: limit.reference,
    units: limit.units,
  });
  const geometry = parsedJson(draft.geometry) ?? null;
  const circle = isPoint(geometry) ? { radius_m: draft.radius_m.trim() === '' ? null : Number(draft.radius_m) } : {};
  return {
    geometry,
    ...circle,
    altitude_lower: altitude(draft.lower),
    altitude_upper: altitude(draft.upper),
    start_time: toUtc(draft.start_time),
    end_time: toUtc(draft.end_time),
  };
}

/** Whether parsed GeoJSON is a Point: a circle, which takes a radius. */
export function isPoint(geometry: unknown): boolean {
  return typeof geometry === 'object' && geometry !== null && (geometry as { type?: unknown }).type === 'Point';
}

/**
 * A request's volumes as drafts, for an amendment: each one's area is its features of `flight_area`
 * (one geometry, or a MultiPolygon of several polygons), its radius the circle's.
 */
export function volumeDrafts(record: Pick<FlightRequestRecord, 'volumes' | 'flight_area'>): VolumeDraft[] {
  const features = (record.flight_area?.features ?? []) as Feature[];
  return record.volumes.map((volume) => {
    const own = volume.features.flatMap((at) => features[at] ?? []);
    const radius: unknown = own.length === 1 ? own[0]?.properties?.['radius_m'] : undefined;
    const limit = (altitude: Altitude) => ({ value: String(altitude.value), reference: altitude.reference, units: altitude.units });
    return {
      geometry: JSON.stringify(oneGeometry(own.map((feature) => feature.geometry))),
      radius_m: typeof radius === 'number' ? String(radius) : '',
      lower: limit(volume.altitude_lower),
      upper: limit(volume.altitude_upper),
      start_time: inputValue(new Date(volume.start_time)),
      end_time: inputValue(new Date(volume.end_time)),
    };
  });
}

function oneGeometry(geometries: Geometry[]): Geometry | null {
  if (geometries.length < 2) return geometries[0] ?? null;
  const coordinates = geometries.flatMap((geometry): Position[][][] =>
    geometry.type === 'Polygon' ? [geometry.coordinates] : geometry.type === 'MultiPolygon' ? geometry.coordinates : [],
  );
  return { type: 'MultiPolygon', coordinates };
}

/** The drafted volumes on the map: the one being drawn dashed, the others as volumes. */
export function draftLayers(drafts: VolumeDraft[], drawing: number | null): MapLayer[] {
  return drafts.flatMap((draft, index) => {
    const geometry = parsedJson(draft.geometry);
    if (geometry === null || typeof geometry !== 'object') return [];
    const band = `${draft.lower.value} ${draft.lower.units} ${draft.lower.reference} – ${draft.upper.value} ${draft.upper.units} ${draft.upper.reference}`;
    const radius = Number(draft.radius_m);
    const circle = isPoint(geometry) && radius > 0 ? { radius_m: radius } : {};
    return [
      {
        id: `volume-draft-${index}`,
        kind: index === drawing ? ('draft' as const) : ('volume' as const),
        data: { type: 'Feature', geometry: geometry as Geometry, properties: circle } satisfies Feature,
        label: `Volume ${index + 1}: ${band}`,
      },
    ];
  });
}
