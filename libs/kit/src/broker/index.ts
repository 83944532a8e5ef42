export * from './broker.js';
export * from './outbox.js';
