import type { GeoJsonObject } from 'geojson';

/**
 * What a map draws. The request's own shapes (`area`, `draft`, `preview`, `volume`, `finding`, `competing`,
 * `refused`) are what the map fits; the zones around them are context, drawn beneath and not fitted.
 */
export type LayerKind =
  | 'area'
  | 'zone'
  | 'zone-prohibited'
  | 'zone-authorisation'
  | 'zone-conditional'
  | 'zone-info'
  | 'zone-raised'
  | 'finding'
  | 'competing'
  | 'draft'
  | 'preview'
  | 'volume'
  | 'refused';

export interface MapLayer {
  id: string;
  kind: LayerKind;
  data: GeoJsonObject;
  /** Shown as the shape's tooltip. */
  label: string;
}
