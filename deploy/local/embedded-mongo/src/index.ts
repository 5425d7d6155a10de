/** Embedded MongoDB-compatible store: see docs/embedded-store.md. */
export { startEmbeddedMongo, type EmbeddedMongo, type EmbeddedMongoOptions } from './server.js';
