import type { Position } from 'geojson';
import { at, attribute, type FieldErrorBag } from './field-errors.js';

/*
 * Structural reading of GeoJSON coordinates: types, lengths and bounds only,
 * never deeper than a position, so hostile nesting costs nothing. Topology
 * (turf) runs only on what passes here.
 */

export type Ring = Position[];
export type PolygonRings = Ring[];

export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** An own property only: values inherited through a prototype never count as input. */
export function own(value: Record<string, unknown>, key: string): unknown {
  return Object.hasOwn(value, key) ? value[key] : undefined;
}

export type AreaGeometryType = 'Polygon' | 'MultiPolygon' | 'Point';

/** How many positions a geometry holds, counted from array lengths alone (before any deep work). */
export function countPositions(type: AreaGeometryType, coordinates: unknown): number {
  if (type === 'Point') return 1;
  if (!Array.isArray(coordinates)) return 0;
  if (type === 'Polygon') return countRingPositions(coordinates);
  let total = 0;
  for (const polygon of coordinates) if (Array.isArray(polygon)) total += countRingPositions(polygon);
  return total;
}

function countRingPositions(rings: unknown[]): number {
  let total = 0;
  for (const ring of rings) if (Array.isArray(ring)) total += ring.length;
  return total;
}

export function readPosition(value: unknown, path: string, errors: FieldErrorBag): Position | null {
  if (!isNumberTuple(value)) {
    errors.add(path, `The ${attribute(path)} field must be a position of 2 or 3 numbers [longitude, latitude].`);
    return null;
  }
  const [longitude, latitude] = value as [number, number];
  let inRange = true;
  if (longitude < -180 || longitude > 180) {
    errors.add(path, `The ${attribute(path)} longitude must be between -180 and 180.`);
    inRange = false;
  }
  if (latitude < -90 || latitude > 90) {
    errors.add(path, `The ${attribute(path)} latitude must be between -90 and 90.`);
    inRange = false;
  }
  return inRange ? value.slice() : null;
}

function isNumberTuple(value: unknown): value is number[] {
  if (!Array.isArray(value) || (value.length !== 2 && value.length !== 3)) return false;
  for (let i = 0; i < value.length; i += 1) {
    const n: unknown = value[i];
    if (typeof n !== 'number' || !Number.isFinite(n)) return false;
  }
  return true;
}

export function readRing(value: unknown, path: string, errors: FieldErrorBag): Ring | null {
  if (!Array.isArray(value)) {
    errors.add(path, `The ${attribute(path)} field must be an array of positions.`);
    return null;
  }
  const ring: Ring = [];
  let valid = true;
  for (let i = 0; i < value.length; i += 1) {
    const position = readPosition(value[i], at(path, i), errors);
    if (position) ring.push(position);
    else valid = false;
  }
  if (!valid) return null;
  if (ring.length < 4) {
    errors.add(path, `The ${attribute(path)} ring must have at least 4 positions.`);
    return null;
  }
  if (!samePoint(ring[0], ring[ring.length - 1])) {
    errors.add(path, `The ${attribute(path)} ring must be closed (first and last positions equal).`);
    return null;
  }
  if (jumpsAcrossAntimeridian(ring)) {
    errors.add(
      path,
      `The ${attribute(path)} ring crosses the antimeridian: split it at longitude 180 into a MultiPolygon ` +
        '(one polygon each side), as RFC 7946 section 3.1.9 requires.',
    );
    return null;
  }
  return ring;
}

/**
 * RFC 7946 edges are straight in longitude/latitude, so an edge from 179° to
 * -179° runs 358° the long way round: such a ring is almost always a shape
 * meant to cross the antimeridian, which the RFC says must be split instead.
 * Refusing it beats reading it as a band around the globe.
 */
function jumpsAcrossAntimeridian(ring: Ring): boolean {
  for (let i = 1; i < ring.length; i += 1) {
    if (Math.abs((ring[i]?.[0] ?? 0) - (ring[i - 1]?.[0] ?? 0)) > 180) return true;
  }
  return false;
}

export function readPolygon(value: unknown, path: string, errors: FieldErrorBag): PolygonRings | null {
  if (!Array.isArray(value) || value.length === 0) {
    errors.add(path, `The ${attribute(path)} field must be a non-empty array of linear rings.`);
    return null;
  }
  const rings: PolygonRings = [];
  let valid = true;
  for (let i = 0; i < value.length; i += 1) {
    const ring = readRing(value[i], at(path, i), errors);
    if (ring) rings.push(ring);
    else valid = false;
  }
  return valid ? rings : null;
}

export function readMultiPolygon(value: unknown, path: string, errors: FieldErrorBag): PolygonRings[] | null {
  if (!Array.isArray(value) || value.length === 0) {
    errors.add(path, `The ${attribute(path)} field must be a non-empty array of polygons.`);
    return null;
  }
  const polygons: PolygonRings[] = [];
  let valid = true;
  for (let i = 0; i < value.length; i += 1) {
    const polygon = readPolygon(value[i], at(path, i), errors);
    if (polygon) polygons.push(polygon);
    else valid = false;
  }
  return valid ? polygons : null;
}

/** Compares longitude and latitude; an altitude never makes two positions differ. */
export function samePoint(a: Position | undefined, b: Position | undefined): boolean {
  return a !== undefined && b !== undefined && a[0] === b[0] && a[1] === b[1];
}
