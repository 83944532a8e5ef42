export * from './broker.js';
export * from './replay.js';
