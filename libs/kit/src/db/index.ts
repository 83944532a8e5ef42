export * from './mongo.js';
export * from './readiness.js';
export * from './engine-gaps.js';
export * from './migrate-indexes.js';
export * from './grouped-writes.js';
export * from './grouped-reads.js';
export * from './driver-collection.js';
export * from './lease.js';
