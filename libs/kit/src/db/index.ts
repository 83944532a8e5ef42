export * from './mongo.js';
export * from './aggregate-store.js';
export * from './engine-gaps.js';
export * from './migrate-indexes.js';
