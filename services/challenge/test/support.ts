/** In-test collaborators and helpers shared by the challenge service tests. */
import { Code, ConnectError, createClient, createRouterTransport, type Client } from '@connectrpc/connect';
import { createConnectTransport } from '@connectrpc/connect-node';
import type { Collection } from 'mongodb';
import type { AddressInfo } from 'node:net';
import { pino, type Logger } from 'pino';
import { ChallengeService } from '../../../gen/passkeyauth/challenge/v1/challenge_service_pb.js';
import { ErrorInfoSchema, type ErrorInfo } from '../../../gen/passkeyauth/common/v1/errors_pb.js';
import { notFound } from '../../runtime/errors.js';
import { createMetrics } from '../../runtime/metrics.js';
import type { Store } from '../../runtime/mongo.js';
import { serviceInterceptors } from '../../runtime/server.js';
import type { CreateChallengeDeps, UserDirectory } from '../src/domain/createChallenge.js';
import type { ProjectSettings, ProjectSettingsSource } from '../src/domain/projectSettings.js';
import { challengeRoutes, createServer } from '../src/server.js';
import { challengeIndexes, RATE_LIMIT_COLLECTION, type ChallengeRecord } from '../src/store/challenges.js';
import { openTestDatabase as openKitDatabase } from '../../../test/kit/openTestDatabase.js';

/** Users per project, and every question asked. */
export class TestUserDirectory implements UserDirectory {
  readonly users = new Set(['pro-1/usr-1', 'pro-1/usr-2', 'pro-2/usr-1', 'pro-2/usr-3']);
  readonly asked: string[] = [];
  async userExists(projectId: string, userId: string): Promise<boolean> {
    this.asked.push(`${projectId}/${userId}`);
    return this.users.has(`${projectId}/${userId}`);
  }
}

/** Project settings per project (any pro- ID gets the defaults unless overridden), and every question asked. */
export class TestProjectSettings implements ProjectSettingsSource {
  readonly overrides = new Map<string, Partial<ProjectSettings>>();
  readonly asked: string[] = [];
  readonly missing = new Set<string>();
  async get(projectId: string): Promise<ProjectSettings> {
    this.asked.push(projectId);
    if (this.missing.has(projectId)) throw notFound('project_not_found', `project ${projectId} does not exist`);
    return {
      projectId,
      appName: 'Test App',
      origins: ['https://app.example.com', 'http://localhost:3000'],
      challengeDelivery: 'app',
      maxChallengeAttempts: 5,
      emailLinkUrl: '',
      ...this.overrides.get(projectId),
    };
  }
}

export const as = (projectId: string, clientAddress?: string) => ({
  headers: {
    'x-passkeyauth-project-id': projectId,
    'x-request-id': 'test-req-1',
    ...(clientAddress === undefined ? {} : { 'x-passkeyauth-client-address': clientAddress }),
  },
});

export async function failure(p: Promise<unknown>): Promise<{ code: Code; info: ErrorInfo | undefined; error: ConnectError }> {
  try {
    await p;
  } catch (err) {
    const error = ConnectError.from(err);
    return { code: error.code, info: error.findDetails(ErrorInfoSchema)[0], error };
  }
  throw new Error('expected the call to fail');
}

/** A fresh database (embedded store, or MONGODB_URI when set) with the service's indexes. */
export interface TestDatabase {
  store: Store;
  challenges: Collection<ChallengeRecord>;
  rateLimits: Collection;
  /** Empties both collections (limits hold for minutes; each case starts with none used). */
  clear(): Promise<void>;
  stop(): Promise<void>;
}

export async function openTestDatabase(): Promise<TestDatabase> {
  const db = await openKitDatabase('challenge_test', challengeIndexes);
  const { store } = db;
  const challenges = store.db.collection<ChallengeRecord>('challenges');
  const rateLimits = store.db.collection(RATE_LIMIT_COLLECTION);
  return {
    store,
    challenges,
    rateLimits,
    async clear() {
      await Promise.all([challenges.deleteMany({}), rateLimits.deleteMany({})]);
    },
    stop: () => db.close(),
  };
}

export const silent = pino({ level: 'silent' });

/** Delivery with no senders: projects in these tests let the application deliver (the default). */
export const noDelivery = { logger: silent };

/** A client of the service in memory, behind the runtime interceptors. */
export function inMemoryClient(deps: CreateChallengeDeps, logger: Logger = silent): Client<typeof ChallengeService> {
  return createClient(
    ChallengeService,
    createRouterTransport(challengeRoutes(deps), { router: { interceptors: serviceInterceptors({ logger, metrics: createMetrics('challenge') }) } }),
  );
}

/** A client of the service over HTTP on a free port, and how to stop that server. */
export async function httpClient(deps: CreateChallengeDeps, ready: () => Promise<boolean>): Promise<{ client: Client<typeof ChallengeService>; close(): Promise<void> }> {
  const server = createServer({ ...deps, logger: silent, metrics: createMetrics('challenge'), ready });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  const transport = createConnectTransport({ baseUrl: `http://127.0.0.1:${port}`, httpVersion: '1.1', useBinaryFormat: true });
  return {
    client: createClient(ChallengeService, transport),
    async close() {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}
