export * from './mongo.js';
export * from './aggregate-store.js';
export * from './engine-gaps.js';
export { unrecorded } from './command-log.js';
export * from './index-coverage.js';
export * from './migrate-indexes.js';
export * from './grouped-writes.js';
