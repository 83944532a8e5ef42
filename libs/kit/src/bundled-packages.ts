/**
 * Dependencies the compiled services load as one file each (`npm run build:services` writes them with
 * esbuild; the image's preload, ./preload/bundled-packages.ts, resolves the packages to them).
 *
 * Each of these is published as many small ES modules re-exporting one another: TypeBox as 200, which
 * every service loads for the contracts' schemas, jose as 46. A module costs the heap its record,
 * namespace and the getters every `export *` level adds, whatever it holds: TypeBox takes 1.75 MiB
 * of heap as published and 0.43 as one file, with the same exports (docs/performance.md, item 33).
 * Only packages made of ES modules without a default export belong here (`export *` is what is bundled).
 */
export const BUNDLED_PACKAGES = ['@sinclair/typebox', 'jose'] as const;

export type BundledPackage = (typeof BUNDLED_PACKAGES)[number];

/** Where the build writes a package's single file: the kit's dist/bundled/, from src/ or from dist/ alike. */
export function bundledFile(name: BundledPackage): URL {
  return new URL(`../dist/bundled/${name.replace(/^@/, '').replace('/', '-')}.js`, import.meta.url);
}
