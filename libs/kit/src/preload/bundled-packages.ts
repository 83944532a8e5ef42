import { existsSync } from 'node:fs';
import * as nodeModule from 'node:module';
import { bundledFile, eachBundle } from '../bundled-packages.js';

/**
 * Preloaded by the image's ENTRYPOINT (`--import=@dfc/kit/preload`, ./index.ts): the compiled
 * services import the packages of `BUNDLES` from the single files `npm run build:services` made of
 * them (why: bundled-packages.ts), not from their hundreds of modules.
 *
 * Only the copy the kit resolves, the one that was bundled, is replaced, and only under the "compiled"
 * condition (the image, `npm start`, the benchmarks): sources run under tsx (tests, `npm run dev`) keep
 * the packages as installed. A package whose file was not built resolves as installed too.
 */
interface ResolveContext {
  conditions: readonly string[];
}
interface ResolveResult {
  url: string;
  format?: string;
  shortCircuit?: boolean;
}
type Resolve = (specifier: string, context: ResolveContext, next: (specifier: string, context: ResolveContext) => ResolveResult) => ResolveResult;
// module.registerHooks is Node 22.15's (the image runs Node 24); the repository's @types/node is Node 20's.
const { registerHooks } = nodeModule as unknown as { registerHooks?: (hooks: { resolve: Resolve }) => unknown };

/** The installed entry module of each bundled package, as the kit imports it → its bundle's file and format. */
const bundleOf = new Map(
  eachBundle()
    .filter(([name]) => existsSync(bundledFile(name)))
    .flatMap(([name, bundle]) => {
      const file = { url: bundledFile(name).href, format: bundle.format === 'cjs' ? 'commonjs' : 'module' };
      return bundle.packages.map((pkg) => [import.meta.resolve(pkg), file] as const);
    }),
);

if (registerHooks !== undefined && bundleOf.size > 0) {
  registerHooks({
    resolve(specifier, context, next) {
      const resolved = next(specifier, context);
      const bundle = context.conditions.includes('compiled') ? bundleOf.get(resolved.url) : undefined;
      return bundle === undefined ? resolved : { ...bundle, shortCircuit: true };
    },
  });
}
