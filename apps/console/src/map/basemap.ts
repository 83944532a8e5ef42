import { feature, mesh } from 'topojson-client';
import type { GeometryCollection, Topology } from 'topojson-specification';
import countries from 'world-atlas/countries-50m.json';

/**
 * Natural Earth 1:50m land and country borders from `world-atlas`, shipped in
 * the bundle (this module is its own chunk, loaded after the page, and kept out
 * of the JavaScript budget): the map needs no tile server.
 */
export function basemap(): { land: GeoJSON.GeoJsonObject; borders: GeoJSON.GeoJsonObject } {
  const topology = countries as unknown as Topology<{ land: GeometryCollection; countries: GeometryCollection }>;
  return {
    land: feature(topology, topology.objects.land),
    borders: mesh(topology, topology.objects.countries, (a, b) => a !== b),
  };
}
