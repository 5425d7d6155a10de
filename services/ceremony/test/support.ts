/**
 * Shared set-up of the ceremony service's tests: MongoDB (the embedded store, or MONGODB_URI's real
 * one) with a fresh database, the real repositories, the real connect adapters talking to the
 * kit's in-memory connect service (test/kit/fakeConnect.ts), a recording InsightsService and a
 * controllable clock.
 */
import { Code, ConnectError, createClient, createRouterTransport, type Client } from '@connectrpc/connect';
import { pino } from 'pino';
import type { EmbeddedMongo } from '@passkeyauth/embedded-mongo';
import { CeremonyService } from '../../../gen/passkeyauth/ceremony/v1/ceremony_service_pb.js';
import { ProjectService } from '../../../gen/passkeyauth/connect/v1/project_service_pb.js';
import { ErrorInfoSchema } from '../../../gen/passkeyauth/common/v1/errors_pb.js';
import { UserService } from '../../../gen/passkeyauth/connect/v1/user_service_pb.js';
import { createMetrics } from '../../runtime/metrics.js';
import type { Store } from '../../runtime/mongo.js';
import { FakeConnect } from '../../../test/kit/fakeConnect.js';
import { openTestDatabase } from '../../../test/kit/openTestDatabase.js';
import { RecordingEventOutbox } from '../../../test/kit/recordingEventOutbox.js';
import { serviceInterceptors } from '../../runtime/server.js';
import { rpcPasskeyDataSigner, rpcProjectDirectory, rpcUserDirectory } from '../src/clients/connectDirectory.js';
import { createAaguidCatalog } from '../src/domain/aaguidDetails.js';
import type { CeremonyDomainDeps, PasskeyNotifier } from '../src/domain/deps.js';
import type {
  AppendInsights,
  AppendInsightsInput,
  CeremonyEvent,
  ClientContext,
  InsightsService,
  LoginInsights,
  LoginInsightsInput,
} from '../src/domain/insights/types.js';
import { ceremonyRoutes } from '../src/server.js';
import { mongoCredentialStore } from '../src/store/credentials.js';
import { ceremonyIndexes } from '../src/store/indexes.js';
import { createInsightsStores } from '../src/store/insightsStores.js';
import { mongoSessionStore } from '../src/store/sessions.js';
import { mongoWebauthnUserStore } from '../src/store/webauthnUsers.js';
import { mongoAuthEventStore } from '../src/store/authEvents.js';

export const silent = pino({ level: 'silent' });


/** An InsightsService double: simple fixed rules, and a record of everything it was told. */
export class RecordingInsights implements InsightsService {
  readonly events: (CeremonyEvent & { notificationRequested?: boolean })[] = [];
  readonly envs: Array<{ projectId: string; userId: string; client: ClientContext }> = [];
  readonly appendInputs: AppendInsightsInput[] = [];
  /** What forLogin was given, with the passkeys as they arrived (B4 may pass their read in flight). */
  readonly loginInputs: (LoginInsightsInput & { passkeys: Awaited<LoginInsightsInput['passkeys']> })[] = [];
  readonly forgotten: string[] = [];

  async forAppend(input: AppendInsightsInput): Promise<AppendInsights> {
    this.appendInputs.push(input);
    if (input.started) this.events.push({ projectId: input.projectId, userId: input.userId, type: 'append-started', situation: input.situation, processId: input.started.processId, client: input.client, at: input.now });
    const appendAllow = input.flags.forcePasskeyAppend || input.client.uvpaAvailable;
    return {
      appendAllow,
      detection: this.detection(input.passkeys.map((p) => p.id)),
      decision: { tag: appendAllow ? 'test-allow' : 'env-no-platform-pk-support', isRestrictedBrowser: false, variant: 'default', auto: false, conditional: false, customData: { source: 'test' } },
    };
  }

  async forLogin(input: LoginInsightsInput): Promise<LoginInsights> {
    const passkeys = await input.passkeys;
    this.loginInputs.push({ ...input, passkeys });
    return {
      loginAllow: passkeys.length > 0,
      detection: this.detection(passkeys.map((p) => p.id)),
      decision: { tag: 'test-login', isCDACandidate: input.strategy === 'maximize', experiments: ['exp-a'], preferImmediatelyAvailable: input.strategy === 'minimize' },
    };
  }

  async recordEvent(event: CeremonyEvent): Promise<void> {
    this.events.push(event);
    if (event.recordVisit && event.userId && event.client) this.envs.push({ projectId: event.projectId, userId: event.userId, client: event.client });
  }

  async forgetUser(projectId: string, userId: string): Promise<void> {
    this.forgotten.push(`${projectId}/${userId}`);
  }

  eventTypes(): string[] {
    return this.events.map((e) => e.type);
  }

  private detection(credentialIds: string[]) {
    return {
      tags: [{ category: 'support' as const, name: 'platform-authenticator' }],
      credentialIds,
      clientEnvIds: ['env-a'],
      passwordManagerIds: [],
      historyData: {
        defaultCount: 1,
        afterErrorCount: 0,
        afterHybridCount: 0,
        autoCount: 0,
        defaultCooldown: false,
        afterErrorCooldown: false,
        afterHybridCooldown: false,
        autoCooldown: false,
        conditionalCreateCooldown: false,
        inAppCooldown: false,
      },
    };
  }
}

/** A clock the tests move; it starts at the real time so the store's TTL sweep leaves sessions alone. */
export class TestClock {
  ms = Date.now();
  now = () => new Date(this.ms);
  advance(ms: number) {
    this.ms += ms;
  }
}

/** The challenge service's notification RPC as a dependency, in memory: records notices, can fail. */
export class RecordingNotifier implements PasskeyNotifier {
  notices: { projectId: string; userId: string; email: string; passkeyName: string; device: string }[] = [];
  failWith: Error | null = null;
  async passkeyAdded(projectId: string, notice: { userId: string; email: string; passkeyName: string; device: string }): Promise<void> {
    if (this.failWith) throw this.failWith;
    this.notices.push({ projectId, ...notice });
  }
}

export interface TestEnv {
  notifier: RecordingNotifier;
  events: RecordingEventOutbox;
  mongo: EmbeddedMongo | null;
  store: Store;
  deps: CeremonyDomainDeps;
  connect: FakeConnect;
  insights: RecordingInsights;
  clock: TestClock;
  client: Client<typeof CeremonyService>;
  close(): Promise<void>;
}

export async function startTestEnv(): Promise<TestEnv> {
  const db = await openTestDatabase('ceremony_test', ceremonyIndexes);
  const { mongo, store } = db;
  const connect = await new FakeConnect().init();
  const connectTransport = connect.transport();
  const insights = new RecordingInsights();
  const notifier = new RecordingNotifier();
  const events = new RecordingEventOutbox();
  const clock = new TestClock();
  const deps: CeremonyDomainDeps = {
    projects: rpcProjectDirectory(createClient(ProjectService, connectTransport)),
    users: rpcUserDirectory(createClient(UserService, connectTransport), { now: () => clock.ms }),
    signer: rpcPasskeyDataSigner(createClient(ProjectService, connectTransport)),
    notifier,
    sessions: mongoSessionStore(store.db),
    credentials: mongoCredentialStore(store.db),
    webauthnUsers: mongoWebauthnUserStore(store.db),
    authEvents: mongoAuthEventStore(store.db),
    insights,
    passkeyEvents: createInsightsStores(store.db).users,
    aaguids: createAaguidCatalog(),
    events,
    logger: silent,
    now: clock.now,
  };
  const client = createClient(
    CeremonyService,
    createRouterTransport(ceremonyRoutes(deps), { router: { interceptors: serviceInterceptors({ logger: silent, metrics: createMetrics('ceremony-test') }) } }),
  );
  return {
    mongo,
    store,
    deps,
    connect,
    insights,
    notifier,
    events,
    clock,
    client,
    close: () => db.close(),
  };
}

export const as = (projectId: string) => ({ headers: { 'x-passkeyauth-project-id': projectId } });

export const clientInformation = (over: Record<string, unknown> = {}) => ({
  remoteAddress: '::ffff:172.18.0.1',
  userAgent: 'Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0.0.0 Safari/537.36',
  userVerifyingPlatformAuthenticatorAvailable: true,
  conditionalMediationAvailable: true,
  clientEnvHandle: 'handle-1',
  ...over,
});

export async function failure(p: Promise<unknown>): Promise<{ code: Code; type: string | undefined; fields: string[]; error: ConnectError }> {
  try {
    await p;
  } catch (err) {
    const error = ConnectError.from(err);
    const info = error.findDetails(ErrorInfoSchema)[0];
    return { code: error.code, type: info?.type, fields: info?.validation.map((v) => v.field) ?? [], error };
  }
  throw new Error('expected the call to fail');
}
