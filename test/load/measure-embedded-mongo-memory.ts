/**
 * Memory per stored document of the embedded store, for credential-shaped documents with the
 * credential collection's indexes:
 *   node --expose-gc --import tsx test/load/measure-embedded-mongo-memory.ts [--docs 200000]
 * The store runs in this process (memory-only) so that garbage can be collected before each
 * reading; the driver's own footprint is in the baseline and does not grow with the documents.
 */
import { parseArgs } from 'node:util';
import { MongoClient } from 'mongodb';
import { startEmbeddedMongo } from '@passkeyauth/embedded-mongo';
import { buildCredentialDocument, CREDENTIAL_INDEXES } from './buildCredentialDocument.js';

const { values } = parseArgs({ options: { docs: { type: 'string', default: '200000' } } });
const total = Number(values.docs);
const gc = (globalThis as { gc?: () => void }).gc;
if (!gc) throw new Error('run with node --expose-gc so the readings exclude garbage');

function settled(): NodeJS.MemoryUsage {
  // Several passes: weak references and finalizers are only released on a later collection.
  for (let i = 0; i < 4; i++) gc!();
  return process.memoryUsage();
}

const store = await startEmbeddedMongo({ port: 0 });
const client = new MongoClient(store.uri);
try {
  await client.connect();
  const coll = client.db('memory').collection('credentials');
  await coll.createIndexes(CREDENTIAL_INDEXES);
  await coll.insertOne(buildCredentialDocument(-1, 'prj-warmup'));
  const before = settled();
  const batch = 2000;
  for (let i = 0; i < total; i += batch) {
    const docs = Array.from({ length: Math.min(batch, total - i) }, (_, j) => buildCredentialDocument(i + j, `prj-${(i + j) % 10}`));
    await coll.insertMany(docs, { ordered: false });
  }
  const after = settled();
  const per = (k: keyof NodeJS.MemoryUsage) => ((after[k] - before[k]) / total).toFixed(0);
  console.log(`${total} credential documents: per document rss ${per('rss')} B, heapTotal ${per('heapTotal')} B, heapUsed ${per('heapUsed')} B, external ${per('external')} B (arrayBuffers ${per('arrayBuffers')} B)`);
} finally {
  await client.close();
  await store.stop();
}
