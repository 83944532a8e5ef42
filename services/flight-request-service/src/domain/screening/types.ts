import type { AreaPolygon, BBox } from '../geometry/flight-area.js';
import type { FlightVolume } from '../volumes/flight-volume.js';
import type { GeoZone } from '../zones/geo-zone.js';
import type { VerticalModel } from '../zones/vertical.js';

/** What screening reads and finds (screen.ts runs the rules; deconfliction.ts and zone-rules.ts are parts of it). */
export type FindingCode =
  | 'ZONE_PROHIBITED'
  | 'ZONE_REQUIRES_AUTHORISATION'
  | 'CTR_EXEMPTION_APPLIED'
  | 'ZONE_CONDITIONAL'
  | 'ZONE_USPACE'
  | 'ZONE_INFORMATION'
  | 'ALTITUDE_ABOVE_LIMIT'
  | 'DECONFLICTION_OVERLAP';

export interface Finding {
  code: FindingCode;
  message: string;
  zone_id: string | null;
  zone_name: string | null;
  authority: string | null;
  /** Zones as an authority publishes them: their ED identifier and country. */
  zone_identifier?: string;
  zone_country?: string | null;
  /** A zone limit not above ground counted as met: no terrain model covers the flight area. */
  terrain_unknown?: true;
  /** A request submitted with volumes: the index of the volume the finding is about. */
  volume?: number;
  /** DECONFLICTION_OVERLAP only: the volume both flights would share, nothing that names the other flight. */
  conflict?: ConflictVolume;
}

export interface ConflictVolume {
  start_time: string;
  end_time: string;
  lower_altitude_m: number;
  upper_altitude_m: number;
  /** Absent when the shared band is above ground. */
  altitude_reference?: 'AMSL' | 'WGS84';
  bbox: BBox;
}

export interface ReviewItemDraft {
  kind: 'zone_authorisation' | 'altitude' | 'deconfliction';
  authority: string;
  zone_id: string | null;
  finding_codes: FindingCode[];
  message: string;
}

export interface ScreeningRules {
  /** A max_altitude above this needs the national authority's review. */
  altitudeReviewAboveM: number;
  /** Reviews altitude and deconfliction items. */
  nationalAuthority: string;
  /** Terrain and geoid, for zone limits that are not above ground; without it such limits count as met. */
  vertical?: VerticalModel;
}

export interface ApprovedFlight {
  uuid: string;
  operator_uuid: string;
  start: Date;
  end: Date;
  max_altitude: number;
  polygons: AreaPolygon[];
  /** Its volumes when it was submitted with them; without, the one its window, area and max_altitude form. */
  volumes?: FlightVolume[];
}

export interface ScreeningInput {
  polygons: AreaPolygon[];
  bbox: BBox;
  start: Date;
  end: Date;
  maxAltitudeM: number;
  /** A submission's own volumes (findings then name them); without, the one the fields above form. */
  volumes?: FlightVolume[];
  operatorUuid: string;
  operator: { exemption_for_ctr: boolean };
  /** Candidates from ZoneIndex.search(bbox); the exact tests happen here. */
  zones: GeoZone[];
  /** Approved flights overlapping the window in time, from the database; other operators' are checked for overlap. */
  approvedFlights: ApprovedFlight[];
  rules: ScreeningRules;
}
