/** Embedded MongoDB-compatible store: see this package's README.md. */
export { startEmbeddedMongo, type EmbeddedMongo, type EmbeddedMongoOptions } from './server.js';
