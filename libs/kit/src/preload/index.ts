/**
 * What the image's ENTRYPOINT preloads (`--import=@dfc/kit/preload`) before a service's first module:
 * each import is one memory saving (docs/performance.md, "Memory"), explained in its own module.
 */
import './node-http.js';
import './lazy-saslprep.js';
import './bundled-packages.js';
