import { useEffect, useRef, useState } from 'preact/hooks';
import L from 'leaflet';
import 'leaflet/dist/leaflet.css';

export type LayerKind = 'area' | 'zone' | 'finding' | 'draft' | 'preview' | 'refused';

export interface MapLayer {
  id: string;
  kind: LayerKind;
  data: GeoJSON.GeoJsonObject;
  /** Shown as the shape's tooltip. */
  label: string;
}

const STYLES: Record<LayerKind, L.PathOptions> = {
  area: { color: '#0b4f9c', weight: 2, fillOpacity: 0.25 },
  zone: { color: '#b3261e', weight: 1.5, dashArray: '4 3', fillOpacity: 0.12 },
  finding: { color: '#8a4b00', weight: 2, fillOpacity: 0.2 },
  draft: { color: '#0b4f9c', weight: 2, dashArray: '6 4', fillOpacity: 0.15 },
  preview: { color: '#1b6e2d', weight: 2, fillOpacity: 0.2 },
  refused: { color: '#a0201a', weight: 3, fillOpacity: 0.3 },
};

/** Where the map opens with nothing to show: the Netherlands, where the sample zones are. */
const HOME: L.LatLngExpression = [52.2, 5.0];

/**
 * A Leaflet map (SVG, no WebGL needed) over the shipped basemap, with a scale
 * bar and the coordinates under the cursor (or of the centre, for keyboard
 * users panning with the arrow keys). It fits the given layers.
 */
export function MapView({ layers, label, onPick }: { layers: MapLayer[]; label: string; onPick?: (position: [number, number]) => void }) {
  const container = useRef<HTMLDivElement>(null);
  const map = useRef<L.Map | null>(null);
  const overlay = useRef<L.FeatureGroup | null>(null);
  const [cursor, setCursor] = useState('');
  const pick = useRef(onPick);
  pick.current = onPick;

  useEffect(() => {
    if (container.current === null) return undefined;
    const created = L.map(container.current, { zoomSnap: 0.5, keyboard: true }).setView(HOME, 7);
    created.attributionControl.setPrefix('Leaflet');
    created.attributionControl.addAttribution('Basemap: Natural Earth');
    L.control.scale({ imperial: false, position: 'bottomleft' }).addTo(created);
    const show = (at: L.LatLng) => setCursor(`${at.lat.toFixed(5)}, ${at.lng.toFixed(5)}`);
    created.on('mousemove', (event: L.LeafletMouseEvent) => show(event.latlng));
    created.on('moveend', () => show(created.getCenter()));
    created.on('click', (event: L.LeafletMouseEvent) => pick.current?.([round(event.latlng.lng), round(event.latlng.lat)]));
    show(created.getCenter());
    overlay.current = L.featureGroup().addTo(created);
    map.current = created;
    void import('./basemap').then(({ basemap }) => {
      const { land, borders } = basemap();
      const pane = created.createPane('basemap');
      pane.style.zIndex = '350';
      L.geoJSON(land, { pane: 'basemap', interactive: false, style: { color: '#9aa59a', weight: 0.8, fillColor: '#eef2e6', fillOpacity: 1 } }).addTo(
        created,
      );
      L.geoJSON(borders, { pane: 'basemap', interactive: false, style: { color: '#8d968d', weight: 0.8, dashArray: '3 2' } }).addTo(created);
    });
    return () => {
      created.remove();
      map.current = null;
    };
  }, []);

  // By content, not identity: a screen that polls re-renders with equal layers, and the view must not jump.
  const content = JSON.stringify(layers);
  useEffect(() => {
    const group = overlay.current;
    if (group === null || map.current === null) return;
    group.clearLayers();
    for (const layer of layers) {
      L.geoJSON(layer.data, { style: STYLES[layer.kind] }).bindTooltip(layer.label, { sticky: true }).addTo(group);
    }
    const bounds = group.getBounds();
    if (bounds.isValid()) map.current.fitBounds(bounds, { padding: [24, 24], maxZoom: 14 });
  }, [content]);

  return (
    <figure class="map">
      <div ref={container} class="map-canvas" role="region" aria-label={label} />
      <figcaption>
        <span>
          Coordinates (lat, lon): <output aria-label="Coordinates under the cursor">{cursor}</output>
        </span>
        <span class="legend">
          {Array.from(new Set(layers.map((layer) => layer.kind))).map((kind) => (
            <span key={kind} class={`legend-${kind}`}>
              {LEGEND[kind]}
            </span>
          ))}
        </span>
      </figcaption>
    </figure>
  );
}

const LEGEND: Record<LayerKind, string> = {
  area: 'Flight area',
  zone: 'Zone',
  finding: 'Shared with another flight',
  draft: 'Drawn area',
  preview: 'Previewed area',
  refused: 'Refused feature',
};

function round(value: number): number {
  return Math.round(value * 1e6) / 1e6;
}
