/**
 * Dependencies the compiled services load as single files (`npm run build:services` writes them with
 * esbuild; the image's preload, ./preload/bundled-packages.ts, resolves the packages to them).
 *
 * Each of these is published as many small modules importing one another: TypeBox as 200 ES modules,
 * which every service loads for the contracts' schemas, jose as 46, the turf functions
 * flight-request-service screens with as 40 with their dependencies, mongoose with the MongoDB driver
 * as 400 CommonJS files. A module costs the heap its record and wrapper, whatever it holds: TypeBox
 * takes 1.75 MiB of heap as published and 0.43 as one file, turf 1.33 and 0.54, mongoose 10.8 and 9.85,
 * with the same exports (docs/performance.md, items 33 and 41).
 */
export interface Bundle {
  /**
   * `esm`: the file re-exports each package's named exports (`export *`), so several packages of ES
   * modules may share one file and the dependencies they have in common; their names must differ, and a
   * default export is not carried. `cjs`: one CommonJS package, whose `module.exports` the file is, with
   * the names Node's CommonJS lexer finds in the installed package declared again for the lexer.
   */
  format: 'esm' | 'cjs';
  packages: readonly string[];
  /** Packages required from the installed copy, not bundled: one that a preload replaces in `require`'s cache. */
  installed?: readonly string[];
}

export const BUNDLES = {
  'sinclair-typebox': { format: 'esm', packages: ['@sinclair/typebox'] },
  jose: { format: 'esm', packages: ['jose'] },
  // flight-request-service's: packages of other workspaces resolve from the root node_modules, where npm installs them.
  turf: {
    format: 'esm',
    packages: [
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
  },
  // saslprep stays where ./preload/lazy-saslprep.ts puts its stand-in, to be loaded on the first password.
  mongoose: { format: 'cjs', packages: ['mongoose'], installed: ['@mongodb-js/saslprep'] },
} as const satisfies Record<string, Bundle>;

export type BundleName = keyof typeof BUNDLES;

/** Each bundle with its name. */
export function eachBundle(): [BundleName, Bundle][] {
  return Object.entries(BUNDLES) as [BundleName, Bundle][];
}

/** Where the build writes a bundle's single file: the kit's dist/bundled/, from src/ or from dist/ alike. */
export function bundledFile(name: BundleName): URL {
  const bundle: Bundle = BUNDLES[name];
  return new URL(`../dist/bundled/${name}.${bundle.format === 'cjs' ? 'cjs' : 'js'}`, import.meta.url);
}
