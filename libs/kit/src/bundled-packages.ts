/**
 * Dependencies the compiled services load as single files (`npm run build:services` writes them with
 * esbuild; the image's preload, ./preload/bundled-packages.ts, resolves the packages to them).
 *
 * Each of these is published as many small ES modules importing one another: TypeBox as 200, which
 * every service loads for the contracts' schemas, jose as 46, the turf functions flight-request-service
 * screens with as 40 with their dependencies. A module costs the heap its record, namespace and the
 * getters every `export *` level adds, whatever it holds: TypeBox takes 1.75 MiB of heap as published
 * and 0.43 as one file, turf 1.3 and 0.5, with the same exports (docs/performance.md, items 33 and 41).
 *
 * A bundle may hold several packages, which then share their dependencies (turf's helpers, meta and
 * polygon clipping): every package of it resolves to the one file, which re-exports each package's
 * named exports (`export *`). So only packages of ES modules whose exports are named, and whose names
 * differ from one another's, belong here; a default export is not carried.
 */
export const BUNDLES = {
  'sinclair-typebox': ['@sinclair/typebox'],
  jose: ['jose'],
  turf: [
    '@turf/area',
    '@turf/bbox',
    '@turf/boolean-intersects',
    '@turf/boolean-within',
    '@turf/centroid',
    '@turf/circle',
    '@turf/helpers',
    '@turf/intersect',
    '@turf/kinks',
    '@turf/rewind',
  ],
} as const satisfies Record<string, readonly string[]>;

export type BundleName = keyof typeof BUNDLES;

/** Where the build writes a bundle's single file: the kit's dist/bundled/, from src/ or from dist/ alike. */
export function bundledFile(name: BundleName): URL {
  return new URL(`../dist/bundled/${name}.js`, import.meta.url);
}
