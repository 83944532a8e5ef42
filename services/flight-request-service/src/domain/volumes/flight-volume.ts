import type { Altitude, FlightVolumeRecord } from '@dfc/contracts';
import type { AreaPolygon, BBox } from '../geometry/flight-area.js';
import { boundsOf } from '../geometry/intersect.js';
import { toUtcZ } from '../time-format.js';

/*
 * A flight as ASTM F3548-21 describes an operational intent: a list of 4-D
 * volumes, each an area, a band between two altitudes of one reference, and a
 * window. A request submitted with the spec's fields alone is one volume: its
 * whole flight area from the ground to max_altitude metres, over its window.
 */

export type { Altitude, AltitudeReference } from '@dfc/contracts';

/** A volume as a request stores it; its area is the request's polygon of the same index, `bbox` that area's box. */
export interface StoredVolume {
  bbox: BBox;
  start_time: Date;
  end_time: Date;
  altitude_lower: Altitude;
  altitude_upper: Altitude;
}

/** A volume as screening and deconfliction read it. */
export interface FlightVolume {
  /** Its index in the request's volumes (0 for a request of the spec's fields). */
  index: number;
  polygons: AreaPolygon[];
  bbox: BBox;
  start: Date;
  end: Date;
  lower: Altitude;
  upper: Altitude;
}

/** What a request says of its volumes: `volumes` when it was submitted with them, else the spec's fields. */
export interface VolumeSource {
  volumes?: StoredVolume[] | null;
  start_time: Date;
  end_time: Date;
  max_altitude: number;
  geometry: { polygons: AreaPolygon[] };
}

export function metresAgl(value: number): Altitude {
  return { value, reference: 'AGL', units: 'm' };
}

/** The one volume the spec's fields form: the whole area, from the ground to max_altitude m AGL. */
export function groundVolume(polygons: AreaPolygon[], start: Date, end: Date, maxAltitudeM: number): FlightVolume {
  return { index: 0, polygons, bbox: boundsOfAll(polygons), start, end, lower: metresAgl(0), upper: metresAgl(maxAltitudeM) };
}

export function volumesOf(request: VolumeSource): FlightVolume[] {
  const { polygons } = request.geometry;
  if (!request.volumes || request.volumes.length === 0) {
    return [groundVolume(polygons, request.start_time, request.end_time, request.max_altitude)];
  }
  return request.volumes.map((volume, index) => {
    const area = polygons.slice(index, index + 1);
    return {
      index,
      polygons: area,
      bbox: volume.bbox,
      start: volume.start_time,
      end: volume.end_time,
      lower: volume.altitude_lower,
      upper: volume.altitude_upper,
    };
  });
}

/** The volumes as records show them, read without the geometry: bands, windows, boxes, and which features are whose area. */
export interface VolumeSummary extends StoredVolume {
  features: number[];
}

export function volumeSummaries(
  request: Pick<VolumeSource, 'volumes' | 'start_time' | 'end_time' | 'max_altitude'> & { area: { bbox: BBox; feature_count: number } },
): VolumeSummary[] {
  if (request.volumes && request.volumes.length > 0) return request.volumes.map((volume, index) => ({ ...volume, features: [index] }));
  return [
    {
      bbox: request.area.bbox,
      start_time: request.start_time,
      end_time: request.end_time,
      altitude_lower: metresAgl(0),
      altitude_upper: metresAgl(request.max_altitude),
      features: Array.from({ length: request.area.feature_count }, (_, feature) => feature),
    },
  ];
}

/** The volumes as records, previews and authorisations show them. */
export function volumeRecords(request: Parameters<typeof volumeSummaries>[0]): FlightVolumeRecord[] {
  return volumeSummaries(request).map((volume) => ({
    start_time: toUtcZ(volume.start_time),
    end_time: toUtcZ(volume.end_time),
    altitude_lower: volume.altitude_lower,
    altitude_upper: volume.altitude_upper,
    bbox: volume.bbox,
    features: volume.features,
  }));
}

export function boundsOfAll(polygons: AreaPolygon[]): BBox {
  return polygons
    .map(boundsOf)
    .reduce((all, box) => [Math.min(all[0], box[0]), Math.min(all[1], box[1]), Math.max(all[2], box[2]), Math.max(all[3], box[3])]);
}
