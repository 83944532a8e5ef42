import { relative } from 'node:path';

/** Where a frame of a V8 profile (CPU or allocation) comes from, as bench/profile-top.ts and bench/allocation-sites.ts print it. */
export interface CallFrame {
  functionName: string;
  url: string;
  lineNumber: number;
}

/** A file's path relative to the working directory, or a built-in's name as it is. */
export function shortUrl(url: string): string {
  const path = url.replace(/^file:\/\//, '');
  return path.startsWith('/') ? relative(process.cwd(), path) : path;
}

/**
 * node_modules/<package> (scoped too), a single file the kit bundled packages into (libs/kit/src/bundled-packages.ts),
 * the repository's own workspace, node's internals, or V8's own bookkeeping.
 */
export function packageOf(frame: CallFrame): string {
  if (!frame.url) return frame.functionName.startsWith('(') ? frame.functionName : '(native)';
  const module = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(frame.url);
  if (module?.[1]) return module[1];
  const bundle = /\/libs\/kit\/dist\/bundled\/([^/]+)\.c?js$/.exec(frame.url);
  if (bundle?.[1]) return `${bundle[1]} (bundled)`;
  if (frame.url.startsWith('node:')) return 'node (built-in modules)';
  const workspace = /\/(libs|services)\/([^/]+)\//.exec(frame.url);
  return workspace ? `${workspace[1]}/${workspace[2]}` : shortUrl(frame.url);
}
