// Writes the single-file builds of the dependencies in BUNDLES (../src/bundled-packages.ts) that the
// compiled services load: `npm run build:services` runs it after tsc.
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { build, type BuildOptions } from 'esbuild';
import { type Bundle, bundledFile, eachBundle } from '../src/bundled-packages.js';

const kitDir = fileURLToPath(new URL('../', import.meta.url));
const requireFromKit = createRequire(import.meta.url);
/** A name the footer's shorthand property can carry. */
const IDENTIFIER = /^[A-Za-z_$][\w$]*$/;

/** An ES module file re-exporting the named exports of each package. */
function esmEntry(bundle: Bundle): BuildOptions {
  return {
    stdin: { contents: bundle.packages.map((pkg) => `export * from '${pkg}';`).join('\n'), resolveDir: kitDir, loader: 'js' },
  };
}

/**
 * The package's CommonJS entry as is. Node finds the named exports an ES module may import from a
 * CommonJS file by reading its source; a bundle's `module.exports = require_x()` shows none, so the
 * footer lists, in a statement that never runs, the names Node finds in the installed package.
 */
async function cjsEntry(bundle: Bundle): Promise<BuildOptions> {
  const [pkg] = bundle.packages;
  if (pkg === undefined || bundle.packages.length > 1) throw new Error('a CommonJS bundle holds one package');
  // Not `default`, nor the `module.exports` Node 23 and later list beside the package's own names.
  const names = Object.keys((await import(pkg)) as object).filter((name) => name !== 'default' && IDENTIFIER.test(name));
  return { entryPoints: [requireFromKit.resolve(pkg)], footer: { js: `0 && (module.exports = { ${names.join(', ')} });` } };
}

for (const [name, bundle] of eachBundle()) {
  await build({
    ...(bundle.format === 'esm' ? esmEntry(bundle) : await cjsEntry(bundle)),
    bundle: true,
    format: bundle.format,
    platform: 'node',
    target: 'node20',
    external: [...(bundle.installed ?? [])],
    outfile: fileURLToPath(bundledFile(name)),
    legalComments: 'inline',
    logLevel: 'warning',
  });
}
