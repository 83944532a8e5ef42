export * from './mongo.js';
