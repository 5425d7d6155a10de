/** Embedded MongoDB-compatible store: see ../README.md. */
export { startEmbeddedMongo, type EmbeddedMongo, type EmbeddedMongoOptions } from './server.js';
