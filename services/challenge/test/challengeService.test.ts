/**
 * ChallengeService with the runtime interceptors, against MongoDB (the embedded store, or a real
 * one when MONGODB_URI is set) and the real mongoChallengeStore, with an in-test UserDirectory.
 * Every case runs in memory (createRouterTransport) and over HTTP on port 0 (createServer).
 */
import type { MessageInitShape } from '@bufbuild/protobuf';
import { Code, createClient, createRouterTransport, type Client, type Transport } from '@connectrpc/connect';
import { createConnectTransport } from '@connectrpc/connect-node';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Collection } from 'mongodb';
import { pino } from 'pino';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { ChallengeService, type CreateChallengeRequest, type CreateChallengeRequestSchema } from '../../../gen/passkeyauth/challenge/v1/challenge_service_pb.js';
import { createMetrics } from '../../runtime/metrics.js';
import type { Store } from '../../runtime/mongo.js';
import { openTestDatabase, type TestDatabase } from '../../../test/kit/openTestDatabase.js';
import { serviceInterceptors } from '../../runtime/server.js';
import type { CreateChallengeDeps } from '../src/domain/createChallenge.js';
import { DEFAULT_RATE_LIMITS } from '../src/domain/rateLimits.js';
import { createValueHasher } from '../src/domain/valueHasher.js';
import { mongoRateLimits } from '../src/rateLimits.js';
import { challengeRoutes, createServer } from '../src/server.js';
import { challengeIndexes, mongoChallengeStore, RATE_LIMIT_COLLECTION, type ChallengeRecord } from '../src/store/challenges.js';
import { as, failure, TestProjectSettings, TestUserDirectory, noDelivery } from './support.js';
import { RecordingEventOutbox } from '../../../test/kit/recordingEventOutbox.js';

const NOW = new Date('2030-01-01T00:00:00.000Z');
const NOW_S = NOW.getTime() / 1000;
const hasher = createValueHasher(Buffer.alloc(32, 7));
const silent = pino({ level: 'silent' });

let db: TestDatabase | undefined;
let store: Store;
let challenges: Collection<ChallengeRecord>;
let users: TestUserDirectory;
let deps: CreateChallengeDeps;
let httpServer: Server;
const transports: Record<'in-memory' | 'http', Transport> = {} as never;

beforeAll(async () => {
  db = await openTestDatabase('challenge_test', challengeIndexes);
  store = db.store;
  challenges = store.db.collection<ChallengeRecord>('challenges');
  users = new TestUserDirectory();
  deps = {
    delivery: noDelivery,
    store: mongoChallengeStore(store.db),
    users,
    projects: new TestProjectSettings(),
    limits: mongoRateLimits(store.db, DEFAULT_RATE_LIMITS),
    hasher,
    events: new RecordingEventOutbox(),
    now: () => new Date(NOW),
  };

  transports['in-memory'] = createRouterTransport(challengeRoutes(deps), {
    router: { interceptors: serviceInterceptors({ logger: silent, metrics: createMetrics('challenge') }) },
  });
  httpServer = createServer({ ...deps, logger: silent, metrics: createMetrics('challenge'), ready: () => store.ping() });
  await new Promise<void>((resolve) => httpServer.listen(0, '127.0.0.1', resolve));
  const port = (httpServer.address() as AddressInfo).port;
  transports.http = createConnectTransport({ baseUrl: `http://127.0.0.1:${port}`, httpVersion: '1.1', useBinaryFormat: true });
});

afterAll(async () => {
  if (httpServer) {
    httpServer.closeAllConnections();
    await new Promise((resolve) => httpServer.close(resolve));
  }
  await db?.close();
});

beforeEach(async () => {
  await challenges.deleteMany({});
  // Limits hold for minutes; each case starts with none used.
  await store.db.collection(RATE_LIMIT_COLLECTION).deleteMany({});
  users.asked.length = 0;
});

/** The plain-object form of a CreateChallengeRequest init. */
type CreateInit = Exclude<MessageInitShape<typeof CreateChallengeRequestSchema>, CreateChallengeRequest>;

const validRequest = (over: Partial<CreateInit> = {}): CreateInit => ({
  userId: 'usr-1',
  challengeType: 'email_otp',
  identifierValue: '  Ada@Example.COM ',
  clientInformation: {
    remoteAddress: '::ffff:172.18.0.1',
    userAgent: 'Mozilla/5.0 (X11; Linux x86_64)',
    userVerifyingPlatformAuthenticatorAvailable: true,
    conditionalMediationAvailable: false,
  },
  challengeMetadata: { purpose: 'signup', attempt: 1 },
  ...over,
});

describe.each(['in-memory', 'http'] as const)('ChallengeService (%s)', (name) => {
  let client: Client<typeof ChallengeService>;
  beforeAll(() => {
    client = createClient(ChallengeService, transports[name]);
  });

  describe('CreateChallenge', () => {
    it('returns the challenge with its value and stores only a keyed hash of it', async () => {
      const { challenge } = await client.createChallenge(validRequest(), as('pro-1'));
      expect(challenge).toBeDefined();
      const c = challenge!;
      expect(c.challengeId).toMatch(/^cha-[1-9][0-9]{19}$/);
      expect(c.type).toBe('email_otp');
      expect(c.identifierValue).toBe('ada@example.com');
      expect(c.value).toMatch(/^[0-9]{6}$/);
      expect(c.expires).toBe(BigInt(NOW_S + 300));
      expect(c.status).toBe('pending');
      expect(users.asked).toEqual(['pro-1/usr-1']);

      const doc = await challenges.findOne({ _id: c.challengeId });
      expect(doc).not.toBeNull();
      expect(doc).toMatchObject({
        _id: c.challengeId,
        projectId: 'pro-1',
        userId: 'usr-1',
        type: 'email_otp',
        identifierValue: 'ada@example.com',
        status: 'pending',
        attempts: 0,
        metadata: { purpose: 'signup', attempt: 1 },
      });
      expect(doc!.createdAt).toEqual(NOW);
      expect(doc!.expiresAt).toEqual(new Date(NOW.getTime() + 300_000));
      expect(doc!.valueHash).toMatch(/^[0-9a-f]{64}$/);
      expect(hasher.matches(c.challengeId, c.value!, doc!.valueHash)).toBe(true);
      expect(doc).not.toHaveProperty('value');
      expect(Object.values(doc!)).not.toContain(c.value);
      expect(Object.keys(doc!).sort()).toEqual(['_id', 'attempts', 'clientAddress', 'createdAt', 'expiresAt', 'identifierValue', 'metadata', 'projectId', 'status', 'type', 'userId', 'valueHash']);
      // The end user's address B1 named: what verification attempts are limited by.
      expect(doc!.clientAddress).toBe(validRequest().clientInformation!.remoteAddress);
    });

    it('honours a requested lifetime and makes 256-bit values for email links', async () => {
      const { challenge } = await client.createChallenge(validRequest({ challengeType: 'email_link', lifetimeSeconds: 86_400n }), as('pro-1'));
      expect(challenge!.expires).toBe(BigInt(NOW_S + 86_400));
      expect(challenge!.value).toMatch(/^[A-Za-z0-9_-]{43}$/);
      const doc = await challenges.findOne({ _id: challenge!.challengeId });
      expect(doc!.expiresAt).toEqual(new Date(NOW.getTime() + 86_400_000));
    });

    it('normalizes the phone number of an SMS challenge and stores empty metadata when none is given', async () => {
      const { challenge } = await client.createChallenge(validRequest({ challengeType: 'sms_otp', identifierValue: '+49 151 1234-5678', challengeMetadata: undefined }), as('pro-1'));
      expect(challenge!.identifierValue).toBe('+4915112345678');
      const doc = await challenges.findOne({ _id: challenge!.challengeId });
      expect(doc!.identifierValue).toBe('+4915112345678');
      expect(doc!.metadata).toEqual({});
    });

    it('gives two challenges with the same value different hashes', async () => {
      const a = (await client.createChallenge(validRequest(), as('pro-1'))).challenge!;
      const b = (await client.createChallenge(validRequest(), as('pro-1'))).challenge!;
      expect(a.challengeId).not.toBe(b.challengeId);
      const [da, db] = await Promise.all([challenges.findOne({ _id: a.challengeId }), challenges.findOne({ _id: b.challengeId })]);
      expect(hasher.matches(b.challengeId, a.value!, db!.valueHash)).toBe(a.value === b.value);
      expect(da!.valueHash).not.toBe(db!.valueHash);
    });

    it('an unknown user is NotFound with ErrorInfo user_not_found, and nothing is stored', async () => {
      const { code, info } = await failure(client.createChallenge(validRequest({ userId: 'usr-404' }), as('pro-1')));
      expect(code).toBe(Code.NotFound);
      expect(info?.type).toBe('user_not_found');
      expect(info?.details).toBe('user usr-404 does not exist');
      expect(await challenges.countDocuments({})).toBe(0);
    });

    it("another project's user is NotFound as well", async () => {
      const { code, info } = await failure(client.createChallenge(validRequest({ userId: 'usr-3' }), as('pro-1')));
      expect(code).toBe(Code.NotFound);
      expect(info?.type).toBe('user_not_found');
      expect(users.asked).toEqual(['pro-1/usr-3']);
    });

    it('protovalidate violations are InvalidArgument with JSON field paths, before the user lookup', async () => {
      const { code, info, error } = await failure(
        client.createChallenge(
          {
            userId: 'user-1',
            challengeType: 'carrier_pigeon',
            identifierValue: '',
            clientInformation: { remoteAddress: '1.2.3.4', userAgent: '', parsedDeviceInfo: { browserName: 'x'.repeat(129) } },
          },
          as('pro-1'),
        ),
      );
      expect(code).toBe(Code.InvalidArgument);
      expect(info?.type).toBe('validation_error');
      const fields = info!.validation.map((v) => v.field).sort();
      expect(fields).toEqual([
        'challengeType',
        'clientInformation.conditionalMediationAvailable',
        'clientInformation.parsedDeviceInfo.browserName',
        'clientInformation.userAgent',
        'clientInformation.userVerifyingPlatformAuthenticatorAvailable',
        'identifierValue',
        'userID',
      ]);
      for (const v of info!.validation) expect(v.message).not.toBe('');
      expect(info!.details).toContain('userID: ');
      expect(error.rawMessage).toContain('clientInformation.userAgent: ');
      expect(users.asked).toEqual([]);
      expect(await challenges.countDocuments({})).toBe(0);
    });

    it('a missing clientInformation is reported under its JSON name', async () => {
      const { code, info } = await failure(client.createChallenge(validRequest({ clientInformation: undefined }), as('pro-1')));
      expect(code).toBe(Code.InvalidArgument);
      expect(info!.validation.map((v) => v.field)).toEqual(['clientInformation']);
    });

    it('domain rule violations carry their field too (lifetime, identifier, metadata size)', async () => {
      const lifetime = await failure(client.createChallenge(validRequest({ lifetimeSeconds: 3601n }), as('pro-1')));
      expect(lifetime.code).toBe(Code.InvalidArgument);
      expect(lifetime.info?.validation).toEqual([{ $typeName: 'passkeyauth.common.v1.FieldViolation', field: 'lifetimeSeconds', message: 'must be between 60 and 3600 for email_otp' }]);

      const identifier = await failure(client.createChallenge(validRequest({ challengeType: 'sms_otp', identifierValue: 'ada@example.com' }), as('pro-1')));
      expect(identifier.code).toBe(Code.InvalidArgument);
      expect(identifier.info?.validation.map((v) => v.field)).toEqual(['identifierValue']);

      const metadata = await failure(client.createChallenge(validRequest({ challengeMetadata: { blob: 'x'.repeat(5000) } }), as('pro-1')));
      expect(metadata.code).toBe(Code.InvalidArgument);
      expect(metadata.info?.validation.map((v) => v.field)).toEqual(['challengeMetadata']);

      expect(users.asked).toEqual([]);
      expect(await challenges.countDocuments({})).toBe(0);
    });

    it('without a project header the call is Unauthenticated', async () => {
      for (const options of [{}, { headers: { 'x-passkeyauth-project-id': 'project-1' } }, { headers: { 'x-passkeyauth-project-id': '' } }]) {
        const { code, info } = await failure(client.createChallenge(validRequest(), options));
        expect(code).toBe(Code.Unauthenticated);
        expect(info?.type).toBe('missing_project');
      }
      expect(users.asked).toEqual([]);
      expect(await challenges.countDocuments({})).toBe(0);
    });
  });

  describe('DeleteUserChallenges', () => {
    it("removes only that project's user's challenges", async () => {
      const ids = {
        p1u1a: (await client.createChallenge(validRequest(), as('pro-1'))).challenge!.challengeId,
        p1u1b: (await client.createChallenge(validRequest({ challengeType: 'email_link' }), as('pro-1'))).challenge!.challengeId,
        p1u2: (await client.createChallenge(validRequest({ userId: 'usr-2' }), as('pro-1'))).challenge!.challengeId,
        p2u1: (await client.createChallenge(validRequest(), as('pro-2'))).challenge!.challengeId,
      };
      const r = await client.deleteUserChallenges({ userId: 'usr-1' }, as('pro-1'));
      expect(r.deleted).toBe(2n);
      const left = (await challenges.find({}).toArray()).map((d) => d._id).sort();
      expect(left).toEqual([ids.p1u2, ids.p2u1].sort());
      // Nothing left to delete.
      expect((await client.deleteUserChallenges({ userId: 'usr-1' }, as('pro-1'))).deleted).toBe(0n);
      expect(await challenges.countDocuments({ projectId: 'pro-2', userId: 'usr-1' })).toBe(1);
    });

    it('needs a project and a valid user ID', async () => {
      await client.createChallenge(validRequest(), as('pro-1'));
      expect((await failure(client.deleteUserChallenges({ userId: 'usr-1' }))).code).toBe(Code.Unauthenticated);
      const invalid = await failure(client.deleteUserChallenges({ userId: 'usr-1; drop' }, as('pro-1')));
      expect(invalid.code).toBe(Code.InvalidArgument);
      expect(invalid.info?.validation.map((v) => v.field)).toEqual(['userID']);
      expect(await challenges.countDocuments({})).toBe(1);
    });
  });
});

describe('failures the caller must not see', () => {
  it('an unexpected error becomes Internal "internal error", without its message', async () => {
    const failing: CreateChallengeDeps = {
      ...deps,
      users: {
        userExists: async () => {
          throw new Error('connect ECONNREFUSED mongodb://admin:hunter2@10.0.0.7');
        },
      },
    };
    const client = createClient(
      ChallengeService,
      createRouterTransport(challengeRoutes(failing), { router: { interceptors: serviceInterceptors({ logger: silent, metrics: createMetrics('challenge') }) } }),
    );
    const { code, info, error } = await failure(client.createChallenge(validRequest(), as('pro-1')));
    expect(code).toBe(Code.Internal);
    expect(error.rawMessage).toBe('internal error');
    expect(info).toBeUndefined();
    expect(JSON.stringify(error.details)).not.toContain('hunter2');
  });
});

describe('the HTTP server', () => {
  const base = () => `http://127.0.0.1:${(httpServer.address() as AddressInfo).port}`;

  it('serves /healthz, /readyz (store reachable) and /metrics beside the RPCs', async () => {
    const health = await fetch(`${base()}/healthz`);
    expect(health.status).toBe(200);
    expect(await health.json()).toEqual({ status: 'ok' });
    const ready = await fetch(`${base()}/readyz`);
    expect(ready.status).toBe(200);
    expect(await ready.json()).toEqual({ status: 'ready' });

    await createClient(ChallengeService, transports.http).createChallenge(validRequest(), as('pro-1'));
    const metrics = await (await fetch(`${base()}/metrics`)).text();
    const line = metrics.split('\n').find((l) => l.startsWith('rpc_server_duration_seconds_count{') && l.includes('method="passkeyauth.challenge.v1.ChallengeService/CreateChallenge"') && l.includes('code="ok"'));
    expect(line).toBeDefined();
    expect(Number(line!.split(' ').at(-1))).toBeGreaterThanOrEqual(1);
  });

  it('takes JSON requests too (Connect protocol), answering errors with ErrorInfo', async () => {
    const r = await fetch(`${base()}/passkeyauth.challenge.v1.ChallengeService/CreateChallenge`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-passkeyauth-project-id': 'pro-1' },
      body: JSON.stringify({ userID: 'usr-1', challengeType: 'email_otp', identifierValue: 'a@example.com' }),
    });
    expect(r.status).toBe(400);
    const body = (await r.json()) as { code: string; details: { type: string }[] };
    expect(body.code).toBe('invalid_argument');
    expect(body.details[0].type).toBe('passkeyauth.common.v1.ErrorInfo');
  });
});
