import type { SharedVolume } from '@dfc/contracts';
import type { Polygon } from 'geojson';
import { when } from '../ui/format';
import type { MapLayer } from './layers';

/** A `[west, south, east, north]` box as a closed ring. */
export function boxPolygon([west, south, east, north]: number[]): Polygon {
  return {
    type: 'Polygon',
    coordinates: [
      [
        [west ?? 0, south ?? 0],
        [east ?? 0, south ?? 0],
        [east ?? 0, north ?? 0],
        [west ?? 0, north ?? 0],
        [west ?? 0, south ?? 0],
      ],
    ],
  };
}

/**
 * A shared volume's window and band with the band's reference: `3 Dec 2026, 10:00 UTC – 3 Dec 2026,
 * 11:00 UTC, 0–60 m AGL` (above ground unless the API names another reference).
 */
export function sharedVolumeText(volume: SharedVolume): string {
  const band = `${volume.lower_altitude_m}–${volume.upper_altitude_m} m ${volume.altitude_reference ?? 'AGL'}`;
  return `${when(volume.start_time)} – ${when(volume.end_time)}, ${band}`;
}

/**
 * The airspace this flight would share with others, as the box of the shared area (all the API
 * gives: nothing identifies the other flight or its operator). `finding`: with an approved flight,
 * which screening found; `competing`: with another operator's pending request, which an approval
 * of either would deny the other.
 */
export function sharedVolumeLayers(volumes: SharedVolume[], kind: 'finding' | 'competing'): MapLayer[] {
  const about = kind === 'finding' ? 'Shared with another approved flight' : "Shared with another operator's pending request";
  return volumes.map((volume, index) => ({
    id: `${kind}-${index}`,
    kind,
    data: boxPolygon(volume.bbox),
    label: `${about}: ${sharedVolumeText(volume)}`,
  }));
}
