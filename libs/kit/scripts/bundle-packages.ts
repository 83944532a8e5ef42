// Writes the single-file builds of the dependencies in BUNDLED_PACKAGES (../src/bundled-packages.ts)
// that the compiled services load: `npm run build:services` runs it after tsc.
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { BUNDLED_PACKAGES, bundledFile } from '../src/bundled-packages.js';

const kitDir = fileURLToPath(new URL('../', import.meta.url));

for (const name of BUNDLED_PACKAGES) {
  await build({
    stdin: { contents: `export * from '${name}';`, resolveDir: kitDir, loader: 'js' },
    bundle: true,
    format: 'esm',
    platform: 'node',
    target: 'node20',
    outfile: fileURLToPath(bundledFile(name)),
    legalComments: 'inline',
    logLevel: 'warning',
  });
}
