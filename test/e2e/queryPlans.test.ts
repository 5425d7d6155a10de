/**
 * Every hot repository query is served by an index that covers its filter (and sort): the store
 * itself is asked with `explain`, on the embedded store and, with MONGODB_URI, on a real MongoDB.
 * The indexes are exactly the ones the services declare (their IndexPlans), the filters and sorts
 * the ones their repositories send (services/*\/src/store).
 */
import { randomBytes } from 'node:crypto';
import type { Document } from 'mongodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEmbeddedMongo, type EmbeddedMongo } from '@passkeyauth/embedded-mongo';
import { ceremonyIndexes } from '../../services/ceremony/src/store/indexes.js';
import { insightsIndexes } from '../../services/ceremony/src/store/insightsIndexes.js';
import { challengeIndexes } from '../../services/challenge/src/store/challenges.js';
import { connectIndexes } from '../../services/connect/src/store/indexes.js';
import { deliveryIndexes } from '../../services/events/src/store/webhookDeliveries.js';
import { webhookEndpointIndexes } from '../../services/events/src/store/webhookEndpoints.js';
import { connectStore, type Store } from '../../services/runtime/mongo.js';

let mongo: EmbeddedMongo | null = null;
let store: Store;

beforeAll(async () => {
  const uri = process.env.MONGODB_URI ?? (mongo = await startEmbeddedMongo({ port: 0, log: () => undefined })).uri;
  store = await connectStore(uri, `plans_${randomBytes(4).toString('hex')}`, { ...ceremonyIndexes, ...insightsIndexes, ...challengeIndexes, ...connectIndexes, ...webhookEndpointIndexes, ...deliveryIndexes });
  // Enough documents of other projects and users that a scan would show as one.
  const db = store.db;
  const many = (n: number, f: (i: number) => Document) => Array.from({ length: n }, (_, i) => f(i));
  await db.collection('credentials').insertMany(many(200, (i) => ({ _id: `cre-${i}` as never, projectId: `pro-${i % 4}`, userId: `usr-${i % 50}`, credentialId: `c${i}`, createdAt: new Date(i) })));
  await db.collection('ceremony_sessions').insertMany(many(200, (i) => ({ _id: `pch-${i}` as never, projectId: `pro-${i % 4}`, userId: `usr-${i % 50}`, challenge: `ch${i}`, expiresAt: new Date(Date.now() + 60_000) })));
  await db.collection('challenges').insertMany(many(200, (i) => ({ _id: `cha-${i}` as never, projectId: `pro-${i % 4}`, userId: `usr-${i % 50}`, expiresAt: new Date(Date.now() + 60_000) })));
  await db.collection('user_insights').insertMany(many(200, (i) => ({ _id: JSON.stringify([`pro-${i % 4}`, `usr-${i}`]) as never, projectId: `pro-${i % 4}`, userId: `usr-${i}` })));
  await db.collection('webauthn_users').insertMany(many(200, (i) => ({ _id: `pro-${i % 4}/usr-${i}` as never, projectId: `pro-${i % 4}`, userId: `usr-${i}` })));
  await db.collection('users').insertMany(many(200, (i) => ({ _id: `usr-${i}` as never, projectId: `pro-${i % 4}`, createdAt: new Date(i) })));
  await db.collection('identifiers').insertMany(many(200, (i) => ({ _id: `ide-${i}` as never, projectId: `pro-${i % 4}`, userId: `usr-${i % 50}`, type: 'email', value: `u${i}@example.com`, claimed: i % 2 === 1, createdAt: new Date(i) })));
  await db.collection('sessions').insertMany(many(200, (i) => ({ _id: `ses-${i}` as never, projectId: `pro-${i % 4}`, userId: `usr-${i % 50}`, createdAt: new Date(i), expiresAt: new Date(Date.now() + 60_000) })));
  await db.collection('social_accounts').insertMany(many(200, (i) => ({ _id: `soc-${i}` as never, projectId: `pro-${i % 4}`, userId: `usr-${i % 50}`, providerType: 'google', foreignId: `f${i}`, identifierValue: `u${i}@example.com`, createdAt: new Date(i) })));
  await db.collection('auth_events').insertMany(many(200, (i) => ({ _id: `aev-${i}` as never, projectId: `pro-${i % 4}`, userId: `usr-${i % 50}`, createdAt: new Date(i), expiresAt: new Date(Date.now() + 60_000) })));
  await db.collection('connect_tokens').insertMany(many(200, (i) => ({ _id: `ctk-${i}` as never, projectId: `pro-${i % 4}`, secretHash: `h${i}`, createdAt: new Date(i), expiresAt: new Date(Date.now() + 60_000) })));
  await db.collection('connect_outbox').insertMany(many(200, (i) => ({ _id: `evt-${i}` as never, projectId: `pro-${i % 4}`, state: i % 50 === 0 ? 'prepared' : i % 10 === 0 ? 'ready' : 'sent', occurredAt: new Date(i), ...(i % 10 === 0 ? {} : { sentAt: new Date(i) }) })));
  await db.collection('webhook_endpoints').insertMany(many(200, (i) => ({ _id: `whe-${i}` as never, projectId: `pro-${i % 40}`, subscribedEvents: ['user.created', 'passkey.created'], enabled: true, createdAt: new Date(i), ...(i % 20 === 0 ? { previousSecretExpiresAt: new Date(i) } : {}) })));
  await db.collection('webhook_project_settings').insertMany(many(50, (i) => ({ _id: `pro-${i}` as never, projectId: `pro-${i}`, allowPrivateAddresses: i % 2 === 0, updatedAt: new Date(i) })));
  await db.collection('webhook_deliveries').insertMany(
    many(200, (i) => ({ _id: `evt-${i}:whe-${i % 7}` as never, projectId: `pro-${i % 4}`, endpointId: `whe-${i % 7}`, eventId: `evt-${i}`, type: i % 3 === 0 ? 'user.deleted' : 'user.created', status: i % 5 === 0 ? 'pending' : 'delivered', nextAttemptAt: new Date(i), createdAt: new Date(i) })),
  );
}, 60_000);

afterAll(async () => {
  await store?.db.dropDatabase().catch(() => undefined);
  await store?.close();
  await mongo?.stop();
});

/** The index a plan reads: IXSCAN's index name, "_id_" for an _id point lookup, "COLLSCAN" for a scan. */
function indexOf(plan: Document): string {
  if (plan.stage === 'IDHACK' || plan.stage === 'EXPRESS_IXSCAN') return plan.indexName ?? '_id_';
  if (plan.stage === 'IXSCAN') return plan.indexName as string;
  if (plan.stage === 'COLLSCAN') return 'COLLSCAN';
  const inputs = [plan.inputStage, ...(plan.inputStages ?? [])].filter(Boolean) as Document[];
  for (const input of inputs) {
    const found = indexOf(input);
    if (found) return found;
  }
  return '';
}

const QUERIES: { what: string; collection: string; filter: Document; sort?: Document; index: string; or?: string }[] = [
  { what: 'ceremony: passkey by credential ID (B5, B7, B3 duplicates)', collection: 'credentials', filter: { projectId: 'pro-1', credentialId: 'c5' }, index: 'project_credential_unique' },
  { what: "ceremony: a user's passkeys, oldest first (B2, B4, lists)", collection: 'credentials', filter: { projectId: 'pro-1', userId: 'usr-1' }, sort: { createdAt: 1, _id: 1 }, index: 'project_user_created' },
  { what: 'ceremony: guarded counter update of a passkey (B5, B7)', collection: 'credentials', filter: { _id: 'cre-5', projectId: 'pro-1', counter: { $lt: 3 } }, index: '_id_' },
  { what: 'ceremony: take the session of a finish (B3, B5, B7)', collection: 'ceremony_sessions', filter: { challenge: 'ch5', projectId: 'pro-1', operation: 'login', userId: 'usr-5', processId: { $in: ['p'] }, expiresAt: { $gt: new Date() } }, index: 'challenge_unique' },
  { what: "ceremony: a deleted user's sessions", collection: 'ceremony_sessions', filter: { projectId: 'pro-1', userId: 'usr-1' }, index: 'project_user_created' },
  {
    what: "ceremony: a user's passkey challenges, newest first (backend list)",
    collection: 'ceremony_sessions',
    filter: { projectId: 'pro-1', userId: 'usr-1', status: { $nin: ['completed', 'consumed'] } },
    sort: { createdAt: -1, _id: -1 },
    index: 'project_user_created',
  },
  { what: 'ceremony: the WebAuthn user handle', collection: 'webauthn_users', filter: { _id: 'pro-1/usr-1' }, index: '_id_' },
  { what: "ceremony: the user's insights document (B2, B4)", collection: 'user_insights', filter: { _id: '["pro-1","usr-1"]', projectId: 'pro-1' }, index: '_id_' },
  { what: "ceremony: a deleted user's events", collection: 'ceremony_events', filter: { projectId: 'pro-1', userId: 'usr-1' }, index: 'project_user_at' },
  { what: 'challenge: a challenge of a user (verify, read)', collection: 'challenges', filter: { _id: 'cha-5', projectId: 'pro-1', userId: 'usr-5' }, index: '_id_' },
  { what: 'challenge: rate limit counter', collection: 'rate_limits', filter: { key: 'challenge_verify_user:pro-1:usr-1' }, index: 'key_unique' },
  { what: 'connect: a user', collection: 'users', filter: { _id: 'usr-5', projectId: 'pro-1' }, index: '_id_' },
  // Both indexes bound all four fields exactly; the planner may pick either (the embedded store picks the longer key).
  { what: 'connect: the claimed identifier of a value (sign-up, login)', collection: 'identifiers', filter: { projectId: 'pro-1', type: 'email', value: 'u5@example.com', claimed: true }, index: 'project_type_value_claimed', or: 'project_type_claimed_value_unique' },
  { what: 'connect: the unclaimed holders of a value (a proof removes them)', collection: 'identifiers', filter: { projectId: 'pro-1', type: 'email', value: 'u5@example.com', claimed: false }, index: 'project_type_value_claimed' },
  { what: "connect: a released sign-up's unclaimed identifiers", collection: 'identifiers', filter: { projectId: 'pro-1', userId: 'usr-1', claimed: false }, index: 'project_user' },
  { what: "connect: a user's identifiers", collection: 'identifiers', filter: { projectId: 'pro-1', userId: 'usr-1' }, index: 'project_user' },
  { what: 'connect: a connect token by secret', collection: 'connect_tokens', filter: { secretHash: 'h5' }, index: 'secret_hash_unique' },
  { what: "connect: a user's sessions, newest first (backend long-session list)", collection: 'sessions', filter: { projectId: 'pro-1', userId: 'usr-1' }, sort: { createdAt: -1 }, index: 'project_user_created' },
  // Both indexes start with the user; the planner may pick either.
  { what: "connect: a user's active sessions (disabling a user ends each)", collection: 'sessions', filter: { projectId: 'pro-1', userId: 'usr-1', status: 'active' }, index: 'project_user', or: 'project_user_created' },
  { what: "connect: a project's connect tokens, oldest first", collection: 'connect_tokens', filter: { projectId: 'pro-1' }, sort: { createdAt: 1 }, index: 'project_created' },
  { what: 'connect: a provider account (a social login finds its user)', collection: 'social_accounts', filter: { projectId: 'pro-1', providerType: 'google', foreignId: 'f5' }, index: 'project_provider_foreign_unique' },
  { what: "connect: a user's social accounts, oldest first (list, limit)", collection: 'social_accounts', filter: { projectId: 'pro-1', userId: 'usr-1' }, sort: { createdAt: 1, _id: 1 }, index: 'project_user_created' },
  { what: "connect: a project's social accounts, oldest first", collection: 'social_accounts', filter: { projectId: 'pro-1' }, sort: { createdAt: 1, _id: 1 }, index: 'project_created' },
  { what: 'connect: social accounts by identifier value', collection: 'social_accounts', filter: { projectId: 'pro-1', identifierValue: 'u5@example.com' }, index: 'project_identifier_value' },
  { what: "ceremony: a user's auth events, newest first (trim, recent)", collection: 'auth_events', filter: { projectId: 'pro-1', userId: 'usr-1' }, sort: { createdAt: -1, _id: -1 }, index: 'project_user_created' },
  { what: 'outbox relay: the next unsent ready event (connect_outbox, ceremony_outbox)', collection: 'connect_outbox', filter: { state: 'ready', $or: [{ leaseUntil: { $exists: false } }, { leaseUntil: { $lt: new Date() } }] }, sort: { occurredAt: 1 }, index: 'state_time' },
  { what: 'outbox relay: entries left prepared by a writer that died', collection: 'connect_outbox', filter: { state: 'prepared', occurredAt: { $lt: new Date() } }, index: 'state_time' },
  { what: "events: a project's endpoints subscribed to a type (PublishEvents)", collection: 'webhook_endpoints', filter: { projectId: 'pro-1', subscribedEvents: { $in: ['user.created', 'passkey.created'] }, enabled: true }, index: 'project_events' },
  { what: "events: the types a project's endpoints subscribe to (GetSubscribedEventTypes: distinct with this filter)", collection: 'webhook_endpoints', filter: { projectId: 'pro-1' }, index: 'project_events' },
  { what: "events: a project's endpoints (list)", collection: 'webhook_endpoints', filter: { projectId: 'pro-1' }, sort: { createdAt: 1, _id: 1 }, index: 'project_events' },
  { what: 'outbox relay: a claimed batch read back by its lease token', collection: 'connect_outbox', filter: { _id: { $in: ['evt-10', 'evt-20'] }, leaseOwner: 'rly-1.1' }, sort: { occurredAt: 1 }, index: '_id_' },
  { what: 'events: a claimed batch of deliveries read back by its lease token', collection: 'webhook_deliveries', filter: { _id: { $in: ['evt-8:whe-1'] }, leaseOwner: 'w.1', status: 'pending' }, sort: { nextAttemptAt: 1 }, index: '_id_' },
  { what: 'events: the endpoints of a claimed batch', collection: 'webhook_endpoints', filter: { _id: { $in: ['whe-1', 'whe-41'] }, projectId: 'pro-1' }, index: '_id_', or: 'project_events' },
  { what: 'events: the next due delivery (worker claim)', collection: 'webhook_deliveries', filter: { status: 'pending', nextAttemptAt: { $lte: new Date() }, $or: [{ leaseUntil: { $exists: false } }, { leaseUntil: { $lt: new Date() } }] }, sort: { nextAttemptAt: 1 }, index: 'status_due' },
  { what: "events: a deleted endpoint's pending deliveries", collection: 'webhook_deliveries', filter: { projectId: 'pro-1', endpointId: 'whe-1', status: 'pending' }, index: 'project_endpoint_status_created' },
  { what: "events: an endpoint's delivery log, newest first", collection: 'webhook_deliveries', filter: { projectId: 'pro-1', endpointId: 'whe-1' }, sort: { createdAt: -1, _id: -1 }, index: 'project_endpoint_created' },
  { what: "events: an endpoint's delivery log by status", collection: 'webhook_deliveries', filter: { projectId: 'pro-1', endpointId: 'whe-1', status: 'delivered' }, sort: { createdAt: -1, _id: -1 }, index: 'project_endpoint_status_created' },
  { what: "events: an endpoint's delivery log by event type", collection: 'webhook_deliveries', filter: { projectId: 'pro-1', endpointId: 'whe-1', type: 'user.deleted' }, sort: { createdAt: 1, _id: 1 }, index: 'project_endpoint_type_created' },
  // Both filters: either index bounds the endpoint and one of them; the other is checked on those few.
  { what: "events: an endpoint's delivery log by status and type", collection: 'webhook_deliveries', filter: { projectId: 'pro-1', endpointId: 'whe-1', status: 'delivered', type: 'user.deleted' }, sort: { createdAt: -1, _id: -1 }, index: 'project_endpoint_status_created', or: 'project_endpoint_type_created' },
  { what: "events: one event's delivery to an endpoint (log filter eventID)", collection: 'webhook_deliveries', filter: { projectId: 'pro-1', endpointId: 'whe-1', _id: 'evt-8:whe-1' }, sort: { createdAt: -1, _id: -1 }, index: '_id_' },
  { what: 'events: the sweep of previous signing secrets after their overlap', collection: 'webhook_endpoints', filter: { previousSecretExpiresAt: { $lte: new Date() } }, index: 'previous_secret_expiry' },
  { what: "events: a project's webhook settings (every batch of attempts)", collection: 'webhook_project_settings', filter: { _id: 'pro-1', projectId: 'pro-1' }, index: '_id_' },
];

describe('query plans of the hot repository queries', () => {
  it.each(QUERIES)('$what uses $index', async ({ collection, filter, sort, index, or }) => {
    const cursor = store.db.collection(collection).find(filter);
    if (sort) cursor.sort(sort);
    const explained = await cursor.explain();
    const plan = (explained.queryPlanner as Document).winningPlan as Document;
    expect([index, ...(or ? [or] : [])], JSON.stringify(plan)).toContain(indexOf(plan));
  });
});
