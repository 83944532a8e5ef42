export * from './broker.js';
export * from './outbox.js';
export * from './replay.js';
