/**
 * The internal RPCs the connect flows use: GetUserHandle, and RecordClientEvent (events the web SDK
 * reports) feeding the insights' history and cooldowns. Through the CeremonyService with the
 * runtime interceptors, on MongoDB; the cooldown tests use the real insights service.
 */
import { Code, createClient, createRouterTransport, type Client } from '@connectrpc/connect';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { CeremonyService } from '../../../gen/passkeyauth/ceremony/v1/ceremony_service_pb.js';
import { createMetrics } from '../../runtime/metrics.js';
import { serviceInterceptors } from '../../runtime/server.js';
import type { CeremonyOutcomeCounter } from '../src/domain/deps.js';
import { createInsightsService, type InsightsRuntime } from '../src/domain/insights/index.js';
import { CEREMONY_EVENTS } from '../src/store/ceremonyEvents.js';
import { createInsightsStores } from '../src/store/insightsStores.js';
import { USER_INSIGHTS } from '../src/store/userInsights.js';
import { ceremonyRoutes } from '../src/server.js';
import { startAppend, startLogin } from './flows.js';
import { as, clientInformation, failure, silent, startTestEnv, type TestEnv } from './support.js';

const MIN = 60_000;

let env: TestEnv;
beforeAll(async () => {
  env = await startTestEnv();
});
afterAll(async () => {
  await env?.close();
});
beforeEach(async () => {
  await Promise.all(['credentials', 'ceremony_sessions', 'webauthn_users', CEREMONY_EVENTS, USER_INSIGHTS].map((c) => env.store.db.collection(c).deleteMany({})));
  env.insights.events.length = 0;
});

const sessions = () => env.store.db.collection('ceremony_sessions');
const challengeOf = (options: string): string => JSON.parse(options).publicKey.challenge;

function event(over: Record<string, unknown> = {}) {
  return { userId: 'usr-1', processId: 'proc-1', eventType: 'append-explicit-abort', message: '', challenge: '', ...over };
}

let metricsSeq = 0;
/** A client of a service built from env.deps with some of them replaced. */
function clientWith(over: Partial<TestEnv['deps']>): Client<typeof CeremonyService> {
  return createClient(
    CeremonyService,
    createRouterTransport(ceremonyRoutes({ ...env.deps, ...over }), {
      router: { interceptors: serviceInterceptors({ logger: silent, metrics: createMetrics(`client-events-${++metricsSeq}`) }) },
    }),
  );
}

describe('GetUserHandle', () => {
  it('is "" before the first append and the handle of the creation options after it', async () => {
    expect((await env.client.getUserHandle({ userId: 'usr-1' }, as('pro-1'))).userHandle).toBe('');
    const started = await startAppend(env.client);
    const handle = JSON.parse(started.attestationOptions).publicKey.user.id;
    expect((await env.client.getUserHandle({ userId: 'usr-1' }, as('pro-1'))).userHandle).toBe(handle);
    // Asking does not create a handle, and handles are per project.
    expect((await env.client.getUserHandle({ userId: 'usr-2' }, as('pro-1'))).userHandle).toBe('');
    expect((await env.client.getUserHandle({ userId: 'usr-1' }, as('pro-2'))).userHandle).toBe('');
    expect(await env.store.db.collection('webauthn_users').countDocuments()).toBe(1);
  });

  it('returns an explicit handle as the append used it', async () => {
    const started = await startAppend(env.client, { userId: 'usr-7' });
    const { userHandle } = await env.client.getUserHandle({ userId: 'usr-7' }, as('pro-1'));
    expect(userHandle).toBe(JSON.parse(started.attestationOptions).publicKey.user.id);
    expect(Buffer.from(userHandle, 'base64url').toString('utf8')).toBe('legacy-handle-7');
  });

  it('refuses a malformed user ID', async () => {
    const f = await failure(env.client.getUserHandle({ userId: 'ada' }, as('pro-1')));
    expect(f.code).toBe(Code.InvalidArgument);
    expect(f.fields).toEqual(['userID']);
  });
});

describe('RecordClientEvent', () => {
  it('records an append abort against the session the challenge names, without consuming it', async () => {
    const started = await startAppend(env.client, { userId: 'usr-1', processId: 'proc-a' });
    const challenge = challengeOf(started.attestationOptions);
    env.insights.events.length = 0;

    // The session's user and process win over what the client claims.
    const r = await env.client.recordClientEvent(event({ userId: 'usr-2', processId: 'proc-other', challenge, message: 'NotAllowedError' }), as('pro-1'));
    expect(r.recordedAs).toBe('append-failed');
    expect(env.insights.events).toEqual([
      expect.objectContaining({ projectId: 'pro-1', userId: 'usr-1', processId: 'proc-a', type: 'append-failed', reason: 'append-explicit-abort', situation: 'default', message: 'NotAllowedError' }),
    ]);
    expect(env.insights.events[0].client).toBeUndefined();
    expect(await sessions().countDocuments({ challenge })).toBe(1);
  });

  it('falls back to the request\'s user and process when no session has the challenge', async () => {
    const r = await env.client.recordClientEvent(event({ userId: 'usr-2', processId: 'proc-9', challenge: 'bm8tc3VjaC1jaGFsbGVuZ2U' }), as('pro-1'));
    expect(r.recordedAs).toBe('append-failed');
    expect(env.insights.events.at(-1)).toMatchObject({ userId: 'usr-2', processId: 'proc-9', type: 'append-failed', reason: 'append-explicit-abort' });
    expect(env.insights.events.at(-1)?.situation).toBeUndefined();
  });

  it('does not take a session from another project or of another kind of ceremony', async () => {
    const append = challengeOf((await startAppend(env.client, { userId: 'usr-1', processId: 'proc-a' })).attestationOptions);
    env.insights.events.length = 0;
    await env.client.recordClientEvent(event({ userId: '', processId: 'proc-x', challenge: append }), as('pro-2'));
    expect(env.insights.events.at(-1)).toMatchObject({ projectId: 'pro-2', userId: undefined, processId: 'proc-x' });
    // A login failure cannot belong to an append ceremony.
    await env.client.recordClientEvent(event({ userId: 'usr-2', processId: 'proc-x', eventType: 'login-error', challenge: append }), as('pro-1'));
    expect(env.insights.events.at(-1)).toMatchObject({ type: 'login-failed', userId: 'usr-2', processId: 'proc-x', reason: 'login-error' });
  });

  it('records login failures as login-failed, linked to the login session', async () => {
    const started = await startLogin(env.client, { userId: 'usr-1', processId: 'proc-l' });
    const r = await env.client.recordClientEvent(event({ userId: '', processId: 'proc-other', eventType: 'login-no-credentials', challenge: challengeOf(started.assertionOptions) }), as('pro-1'));
    expect(r.recordedAs).toBe('login-failed');
    expect(env.insights.events.at(-1)).toMatchObject({ type: 'login-failed', userId: 'usr-1', processId: 'proc-l', reason: 'login-no-credentials' });
  });

  it('records the other known event types as client-event, with the client when given', async () => {
    for (const eventType of ['login-one-tap-switch', 'user-login-blacklisted', 'user-append-after-cross-platform-blacklisted', 'append-learn-more', 'manage-error-unexpected']) {
      const r = await env.client.recordClientEvent(event({ eventType, clientInformation: clientInformation() }), as('pro-1'));
      expect(r.recordedAs).toBe('client-event');
      expect(env.insights.events.at(-1)).toMatchObject({ type: 'client-event', reason: eventType, userId: 'usr-1', processId: 'proc-1' });
      expect(env.insights.events.at(-1)?.client).toMatchObject({ userAgent: expect.stringContaining('Chrome'), uvpaAvailable: true, clientEnvHandle: 'handle-1' });
    }
  });

  it('records no user when neither the request nor a session names one', async () => {
    await env.client.recordClientEvent(event({ userId: '', eventType: 'append-learn-more' }), as('pro-1'));
    expect(env.insights.events.at(-1)).toMatchObject({ type: 'client-event', userId: undefined, processId: 'proc-1' });
  });

  it('keeps the message only when it is a short code', async () => {
    await env.client.recordClientEvent(event({ message: 'InvalidStateError: 11.2_x' }), as('pro-1'));
    expect(env.insights.events.at(-1)?.message).toBe('InvalidStateError: 11.2_x');
    for (const message of ['<script>alert(1)</script>', 'line\nbreak', 'x'.repeat(201), 'token=abc&x=1']) {
      const r = await env.client.recordClientEvent(event({ message }), as('pro-1'));
      expect(r.recordedAs).toBe('append-failed');
      expect(env.insights.events.at(-1)?.message).toBeUndefined();
    }
  });

  it('refuses unknown event types as validation_error and records nothing', async () => {
    for (const eventType of ['append-exploded', 'constructor', '__proto__', 'APPEND-ERROR']) {
      const f = await failure(env.client.recordClientEvent(event({ eventType }), as('pro-1')));
      expect(f.code).toBe(Code.InvalidArgument);
      expect(f.type).toBe('validation_error');
      expect(f.fields).toEqual(['eventType']);
    }
    expect(env.insights.events).toEqual([]);
  });

  it('refuses a malformed user ID and a missing process', async () => {
    expect((await failure(env.client.recordClientEvent(event({ userId: 'ada' }), as('pro-1')))).fields).toEqual(['userID']);
    expect((await failure(env.client.recordClientEvent(event({ processId: '' }), as('pro-1')))).fields).toEqual(['processID']);
  });

  it('counts a reported append or login failure as its ceremony\'s failure, with the event type as reason', async () => {
    const counted: Parameters<CeremonyOutcomeCounter['inc']>[0][] = [];
    const client = clientWith({ outcomes: { inc: (labels) => counted.push(labels) } });
    await client.recordClientEvent(event({ eventType: 'append-credential-exists' }), as('pro-1'));
    await client.recordClientEvent(event({ eventType: 'login-explicit-abort' }), as('pro-1'));
    await client.recordClientEvent(event({ eventType: 'append-learn-more' }), as('pro-1'));
    expect(counted).toEqual([
      { operation: 'append', outcome: 'failure', reason: 'append-credential-exists' },
      { operation: 'login', outcome: 'failure', reason: 'login-explicit-abort' },
    ]);
  });

  it('answers even when the event cannot be stored', async () => {
    const insights = Object.create(env.insights) as typeof env.insights;
    insights.recordEvent = async () => {
      throw new Error('event store down');
    };
    const r = await clientWith({ insights }).recordClientEvent(event(), as('pro-1'));
    expect(r.recordedAs).toBe('append-failed');
  });
});

/**
 * With the real insights: an append start without outcome is pending for pendingGraceMinutes (10)
 * and only then counts as abandoned. A second start one minute later therefore shows the
 * difference an "append-explicit-abort" makes: with it the first attempt failed and the default
 * variant cools down; without it the first attempt is still running.
 */
describe('RecordClientEvent feeds history and cooldowns', () => {
  let real: InsightsRuntime | null = null;
  const realInsights = () => clientWith({ insights: (real = createInsightsService(createInsightsStores(env.store.db))) });
  // Events are written in the background: a test reads them after a flush, and leaves none queued for the next.
  const flushed = async () => {
    await real?.flush();
    return env.store.db.collection(CEREMONY_EVENTS);
  };
  afterEach(async () => {
    await real?.close();
    real = null;
  });

  it('an aborted append cools its variant down for the next start', async () => {
    const client = realInsights();
    const first = await startAppend(client, { userId: 'usr-1', processId: 'proc-a' });
    expect(first.appendAllow).toBe(true);
    expect(first.detectionInsights?.historyData?.defaultCooldown).toBe(false);

    const r = await client.recordClientEvent(
      event({ userId: 'usr-1', processId: 'proc-a', challenge: challengeOf(first.attestationOptions), message: 'NotAllowedError', clientInformation: clientInformation() }),
      as('pro-1'),
    );
    expect(r.recordedAs).toBe('append-failed');
    const stored = await (await flushed()).findOne({ type: 'append-failed' });
    expect(stored).toMatchObject({ projectId: 'pro-1', userId: 'usr-1', processId: 'proc-a', reason: 'append-explicit-abort', situation: 'default', message: 'NotAllowedError' });
    expect(stored?.client).toMatchObject({ clientEnvKey: 'handle-1', restrictedBrowser: false });

    env.clock.advance(MIN);
    const second = await startAppend(client, { userId: 'usr-1', processId: 'proc-b' });
    expect(second.detectionInsights?.historyData).toMatchObject({ defaultCount: 1, defaultCooldown: true });
    expect(second.appendAllow).toBe(false);
    expect(second.decisionInsights?.tag).toBe('default-cooldown');
  });

  it('without the event the first attempt is still pending: no cooldown until the grace has passed', async () => {
    const client = realInsights();
    await startAppend(client, { userId: 'usr-2', processId: 'proc-a' });

    env.clock.advance(MIN);
    const second = await startAppend(client, { userId: 'usr-2', processId: 'proc-b' });
    expect(second.detectionInsights?.historyData).toMatchObject({ defaultCount: 1, defaultCooldown: false });
    expect(second.appendAllow).toBe(true);

    // Both attempts are abandoned once the grace has passed.
    env.clock.advance(10 * MIN);
    const third = await startAppend(client, { userId: 'usr-2', processId: 'proc-c' });
    expect(third.detectionInsights?.historyData?.defaultCooldown).toBe(true);
  });

  it('the abort fails the attempt of its own process, not the latest one', async () => {
    const client = realInsights();
    const start = (processId: string, situation: string) =>
      client.startAppend({ userId: 'usr-1', processId, username: 'ada@example.com', clientInformation: clientInformation(), passkeyIntelFlags: {}, situation }, as('pro-1'));
    const afterError = await start('proc-a', 'after-error');
    env.clock.advance(MIN);
    await start('proc-b', 'default');
    // The client names only its process: the challenge is not known.
    await client.recordClientEvent(event({ userId: 'usr-1', processId: 'proc-a', challenge: 'dW5rbm93bg' }), as('pro-1'));
    env.clock.advance(MIN);
    const check = await start('proc-c', 'default');
    expect(check.detectionInsights?.historyData).toMatchObject({ afterErrorCooldown: true, defaultCooldown: false });
    // And through the challenge, whatever process the client names.
    env.clock.advance(MIN);
    await client.recordClientEvent(event({ userId: 'usr-1', processId: 'proc-zzz', challenge: challengeOf(afterError.attestationOptions) }), as('pro-1'));
    expect(await (await flushed()).countDocuments({ type: 'append-failed', processId: 'proc-a' })).toBe(2);
  });

  it('an event that is no append failure does not cool anything down', async () => {
    const client = realInsights();
    const first = await startAppend(client, { userId: 'usr-1', processId: 'proc-a' });
    await client.recordClientEvent(event({ userId: 'usr-1', processId: 'proc-a', eventType: 'append-learn-more', challenge: challengeOf(first.attestationOptions) }), as('pro-1'));
    env.clock.advance(MIN);
    const second = await startAppend(client, { userId: 'usr-1', processId: 'proc-b' });
    expect(second.detectionInsights?.historyData?.defaultCooldown).toBe(false);
    expect(second.appendAllow).toBe(true);
  });
});
