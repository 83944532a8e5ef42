// Writes the single-file builds of the dependencies in BUNDLED_PACKAGES (libs/kit/src/bundled-packages.ts)
// that the compiled services load: `npm run build:services` runs it after tsc.
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { BUNDLED_PACKAGES, bundledFile } from '@dfc/kit/bundled-packages';

const kitDir = fileURLToPath(new URL('../libs/kit/', import.meta.url));

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
