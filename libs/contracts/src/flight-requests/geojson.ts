import { Type, type Static, type TSchema, type TUnion } from '@sinclair/typebox';
import { Double } from '../schema-helpers.js';

/*
 * GeoJSON (RFC 7946) shapes as documentation and response schemas. Requests are
 * not validated with these: the geometry rules (closed rings, no
 * self-intersections, holes inside shells, position and area budgets) need code,
 * so bodies carry `Type.Unknown` and the service's geometry checks report every
 * failing path at once.
 */

/**
 * The longitude and latitude bounds are the geometry rules' (described, not in the schema):
 * `prefixItems` would say them, but @hey-api/openapi-ts turns `prefixItems` + `items` into a
 * tuple of three that refuses `[longitude, latitude]`, and a bound on `items` would refuse the
 * altitude the service accepts.
 */
export const GeoJsonPosition = Type.Array(Double(), {
  minItems: 2,
  maxItems: 3,
  description: '[longitude, latitude]; longitude -180..180, latitude -90..90; a third number (altitude) is accepted and ignored',
  examples: [[4.7634, 52.3086]],
});

/** A closed ring: at least 4 positions, the first repeated as the last. */
export const GeoJsonLinearRing = Type.Array(GeoJsonPosition, { minItems: 4 });

export const GeoJsonPolygon = Type.Object(
  {
    type: Type.Literal('Polygon'),
    coordinates: Type.Array(GeoJsonLinearRing, {
      minItems: 1,
      description:
        'the exterior ring first, then holes; stored with the right-hand rule (exterior counter-clockwise). ' +
        'A ring may not cross the antimeridian: split such an area into a MultiPolygon (RFC 7946 §3.1.9).',
    }),
  },
  { $id: 'GeoJsonPolygon' },
);
export type GeoJsonPolygon = Static<typeof GeoJsonPolygon>;

export const GeoJsonMultiPolygon = Type.Object(
  {
    type: Type.Literal('MultiPolygon'),
    coordinates: Type.Array(Type.Array(GeoJsonLinearRing, { minItems: 1 }), { minItems: 1 }),
  },
  { $id: 'GeoJsonMultiPolygon' },
);
export type GeoJsonMultiPolygon = Static<typeof GeoJsonMultiPolygon>;

/** In a flight area, the centre of a circle whose radius is the feature's `properties.radius_m`. */
export const GeoJsonPoint = Type.Object({ type: Type.Literal('Point'), coordinates: GeoJsonPosition }, { $id: 'GeoJsonPoint' });

/**
 * `oneOf` the geometries, discriminated by `type`: generators make a tagged union a client builds
 * as a plain object (`{ type: 'Polygon', coordinates }`), where an `anyOf` merges the members
 * into one type whose `coordinates` fit none. The mapping names the document's components.
 */
function geometryUnion<T extends TSchema[]>(members: [...T]) {
  const mapping = Object.fromEntries(
    members.map((member) => [
      (member as unknown as { properties: { type: { const: string } } }).properties.type.const,
      `#/components/schemas/${member.$id}`,
    ]),
  );
  return Type.Unsafe<Static<TUnion<T>>>({ oneOf: members, discriminator: { propertyName: 'type', mapping } });
}

/** A zone's geometry: a Polygon or a MultiPolygon, never a circle. */
export const ZoneGeometry = geometryUnion([GeoJsonPolygon, GeoJsonMultiPolygon]);
export type ZoneGeometry = Static<typeof ZoneGeometry>;

/** A volume's geometry: a Polygon, a MultiPolygon, or a Point (the centre of a circle of the volume's `radius_m`). */
export const VolumeGeometry = geometryUnion([GeoJsonPolygon, GeoJsonMultiPolygon, GeoJsonPoint]);

/** radius_m of a Point feature: a circle of 1..5000 m (PRODUCT.md defaults). */
const CircleProperties = Type.Object({ radius_m: Double({ minimum: 1, maximum: 5000 }) });

/** One feature of a flight area: a (Multi)Polygon, or a Point with `properties.radius_m` (a circle). */
export const FlightAreaFeature = Type.Object(
  {
    type: Type.Literal('Feature'),
    properties: Type.Record(Type.String(), Type.Unknown(), {
      description: 'any object (may be empty); a Point feature needs radius_m, 1..5000 metres',
    }),
    geometry: geometryUnion([GeoJsonPolygon, GeoJsonMultiPolygon, GeoJsonPoint]),
  },
  {
    $id: 'FlightAreaFeature',
    // A Point is a circle: its radius is required (generators read no `if`, validators and fuzzers do).
    if: { properties: { geometry: { properties: { type: { const: 'Point' } }, required: ['type'] } }, required: ['geometry'] },
    then: { properties: { properties: CircleProperties } },
  },
);

/** `flight_area`: 1..50 features, at most 10,000 positions and 1,000 km² in all (PRODUCT.md defaults). */
export const FlightArea = Type.Object(
  {
    type: Type.Literal('FeatureCollection'),
    features: Type.Array(FlightAreaFeature, { minItems: 1, maxItems: 50 }),
  },
  {
    $id: 'FlightArea',
    examples: [
      {
        type: 'FeatureCollection',
        features: [
          {
            type: 'Feature',
            properties: {},
            geometry: {
              type: 'Polygon',
              coordinates: [
                [
                  [4.89, 52.37],
                  [4.9, 52.37],
                  [4.9, 52.38],
                  [4.89, 52.38],
                  [4.89, 52.37],
                ],
              ],
            },
          },
        ],
      },
    ],
  },
);
export type FlightArea = Static<typeof FlightArea>;
