/** Shared set-up of the connect service's tests: an embedded store, real repositories, in-memory RPC. */
import { createClient, createRouterTransport, type Client, type Transport } from '@connectrpc/connect';
import { CeremonyService } from '../../../gen/passkeyauth/ceremony/v1/ceremony_service_pb.js';
import { ChallengeService } from '../../../gen/passkeyauth/challenge/v1/challenge_service_pb.js';
import { ProjectService } from '../../../gen/passkeyauth/connect/v1/project_service_pb.js';
import { UserService } from '../../../gen/passkeyauth/connect/v1/user_service_pb.js';
import type { EmbeddedMongo } from '@passkeyauth/embedded-mongo';
import { openTestDatabase } from '../../../test/kit/openTestDatabase.js';
import { HEADERS } from '../../runtime/context.js';
import { createLogger } from '../../runtime/logger.js';
import { createMetrics } from '../../runtime/metrics.js';
import type { Store } from '../../runtime/mongo.js';
import { serviceInterceptors } from '../../runtime/server.js';
import { rpcOneTimeCodes } from '../src/clients/challengeClient.js';
import { rpcPasskeyCeremonies } from '../src/clients/ceremonyClient.js';
import type { UserCleanup } from '../src/shared/domain/userCleanup.js';
import { connectRoutes, type ConnectServiceDeps } from '../src/server.js';
import { mongoAuthProcessStore } from '../src/auth-flows/store/authProcesses.js';
import { mongoClientEnvStore } from '../src/shared/store/clientEnvs.js';
import { mongoConnectTokenStore } from '../src/connect-tokens/store/connectTokens.js';
import { mongoProcessStore } from '../src/connect-flows/store/processes.js';
import { connectIndexes } from '../src/store/indexes.js';
import { mongoIdentifierStore } from '../src/users/store/identifiers.js';
import { mongoSocialAccountStore } from '../src/users/store/socialAccounts.js';
import { mongoIdentifierVerificationStore } from '../src/me/store/identifierVerifications.js';
import { mongoMeAppendStore } from '../src/me/store/meAppends.js';
import { mongoProjectStore } from '../src/projects/store/projects.js';
import { mongoSessionStore } from '../src/sessions/store/sessions.js';
import { userSessionEnder } from '../src/sessions/index.js';
import { mongoUserStore } from '../src/users/store/users.js';
import { RecordingEventOutbox } from '../../../test/kit/recordingEventOutbox.js';

export const logger = createLogger('connect-test', 'silent');
export const metrics = createMetrics('connect-test');
export const MASTER_KEY_HEX = 'a1'.repeat(32);

/**
 * The challenge and ceremony services as a dependency, in memory: it records the calls it gets and
 * can be told to fail, which is how the delete-user path is tested without those processes.
 */
export class RecordingUserCleanup implements UserCleanup {
  calls: Array<{ projectId: string; userId: string }> = [];
  failWith: Error | null = null;
  async deleteUserData(projectId: string, userId: string): Promise<void> {
    this.calls.push({ projectId, userId });
    if (this.failWith) throw this.failWith;
  }
}

export interface TestEnv {
  /** Null when MONGODB_URI points the tests at a real MongoDB. */
  mongo: EmbeddedMongo | null;
  store: Store;
  uri: string;
  deps: ConnectServiceDeps;
  cleanup: RecordingUserCleanup;
  events: RecordingEventOutbox;
  close(): Promise<void>;
}

/** An embedded MongoDB-compatible store (or MONGODB_URI's real MongoDB) with a fresh database. */
export async function startTestEnv(urls = { frontendApiUrl: 'http://localhost:8080', backendApiUrl: 'http://localhost:8081' }): Promise<TestEnv> {
  const db = await openTestDatabase('connect_test', connectIndexes);
  const { mongo, store, uri } = db;
  const cleanup = new RecordingUserCleanup();
  const events = new RecordingEventOutbox();
  const sessions = mongoSessionStore(store.db);
  const deps: ConnectServiceDeps = {
    projects: mongoProjectStore(store.db),
    users: mongoUserStore(store.db),
    identifiers: mongoIdentifierStore(store.db),
    socialAccounts: mongoSocialAccountStore(store.db),
    connectTokens: mongoConnectTokenStore(store.db),
    processes: mongoProcessStore(store.db),
    clientEnvs: mongoClientEnvStore(store.db),
    sessions,
    sessionEnder: userSessionEnder({ sessions, events, now: () => new Date() }),
    // The connect flows' ceremony calls are exercised end to end (test/e2e/connectFlows.test.ts)
    // and in memory with fakes of the port (test/kit/fakeCeremonyAndChallenge.ts); here the RPC adapter over an empty
    // router answers them with "unimplemented".
    ceremony: rpcPasskeyCeremonies(createClient(CeremonyService, createRouterTransport(() => undefined))),
    // Likewise the challenge service (me.test.ts puts a fake service behind the adapter).
    challenges: rpcOneTimeCodes(createClient(ChallengeService, createRouterTransport(() => undefined))),
    authProcesses: mongoAuthProcessStore(store.db),
    meAppends: mongoMeAppendStore(store.db),
    identifierVerifications: mongoIdentifierVerificationStore(store.db),
    cleanup,
    events,
    logger,
    masterKey: Buffer.from(MASTER_KEY_HEX, 'hex'),
    urls,
    now: () => new Date(),
  };
  return {
    mongo,
    store,
    uri,
    deps,
    cleanup,
    events,
    close: () => db.close(),
  };
}

/** The service's routes behind the same interceptors as in production, without a network. */
export function inMemoryTransport(deps: ConnectServiceDeps): Transport {
  return createRouterTransport(connectRoutes(deps), { router: { interceptors: serviceInterceptors({ logger, metrics }) } });
}

export interface Clients {
  users: Client<typeof UserService>;
  projects: Client<typeof ProjectService>;
}

export function clients(transport: Transport): Clients {
  return { users: createClient(UserService, transport), projects: createClient(ProjectService, transport) };
}

/** Call options that act as the given project, as the gateway does after authenticating. */
export function as(projectId: string) {
  return { headers: { [HEADERS.projectId]: projectId } };
}
