export * from './mongo.js';
export * from './aggregate-store.js';
export * from './engine-gaps.js';
