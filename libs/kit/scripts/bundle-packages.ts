// Writes the single-file builds of the dependencies in BUNDLES (../src/bundled-packages.ts) that the
// compiled services load: `npm run build:services` runs it after tsc.
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { BUNDLES, type BundleName, bundledFile } from '../src/bundled-packages.js';

const kitDir = fileURLToPath(new URL('../', import.meta.url));

for (const [name, packages] of Object.entries(BUNDLES) as [BundleName, readonly string[]][]) {
  await build({
    stdin: { contents: packages.map((pkg) => `export * from '${pkg}';`).join('\n'), resolveDir: kitDir, loader: 'js' },
    bundle: true,
    format: 'esm',
    platform: 'node',
    target: 'node20',
    outfile: fileURLToPath(bundledFile(name)),
    legalComments: 'inline',
    logLevel: 'warning',
  });
}
