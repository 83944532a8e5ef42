import Module, { createRequire } from 'node:module';

/**
 * Preloaded by the image's ENTRYPOINT (`--import=@dfc/kit/preload`, ./index.ts), before the MongoDB
 * driver loads: the driver's `@mongodb-js/saslprep` is loaded on its first call instead of at start.
 *
 * The driver requires it at load for SCRAM-SHA-256 (it normalises a password before hashing it), and
 * the package builds its six Unicode tables as it loads: 1.9 MiB of heap, most of it nearly empty page
 * arrays, kept by every service with a database whether or not its connection string has a password
 * (docs/performance.md, item 32). Here the driver's `require` finds, in the module cache, a function
 * that loads the package on the first password it normalises and hands every call on to it; a
 * connection without credentials never loads it. Nothing is changed when the package is already loaded.
 */
type SaslPrep = (input: string, options?: { allowUnassigned?: boolean }) => string;

const requireFromKit = createRequire(import.meta.url);
// The copy of the package the driver the kit uses resolves: kit → mongoose → mongodb → saslprep.
const requireFromDriver = createRequire(createRequire(requireFromKit.resolve('mongoose')).resolve('mongodb'));
const PACKAGE = '@mongodb-js/saslprep';
const path = requireFromDriver.resolve(PACKAGE);

if (requireFromDriver.cache[path] === undefined) {
  let loaded: SaslPrep | undefined;
  const saslprep: SaslPrep = (input, options) => {
    if (loaded === undefined) {
      delete requireFromDriver.cache[path];
      loaded = requireFromDriver(PACKAGE) as SaslPrep;
    }
    return loaded(input, options);
  };
  // The package's own shape: the function itself, also as its `saslprep` and `default` properties.
  const stub = new Module(path);
  stub.filename = path;
  stub.loaded = true;
  stub.exports = Object.assign(saslprep, { saslprep, default: saslprep });
  requireFromDriver.cache[path] = stub;
}
