export * from './fields.js';
export * from './relay.js';
export * from './aggregate-store.js';
