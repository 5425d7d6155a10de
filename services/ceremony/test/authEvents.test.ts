/**
 * POST /v2/users/{userID}/authEvents (AuthEventService) in memory: the reference's fields and
 * enums, 400 naming the field, another project's user 404, the per-user bound, the TTL from the
 * project's retention, and removal with the user.
 */
import { Code, createClient, createRouterTransport, type Client } from '@connectrpc/connect';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AuthEventService } from '../../../gen/passkeyauth/ceremony/v1/auth_event_service_pb.js';
import { createMetrics } from '../../runtime/metrics.js';
import { serviceInterceptors } from '../../runtime/server.js';
import { deleteUserCredentials } from '../src/domain/deleteUserCredentials.js';
import { MAX_AUTH_EVENTS_PER_USER } from '../src/domain/recordAuthEvent.js';
import { ceremonyRoutes } from '../src/server.js';
import { AUTH_EVENTS, type AuthEventRecord } from '../src/store/authEvents.js';
import { as, clientInformation, failure, silent, startTestEnv, type TestEnv } from './support.js';

let env: TestEnv;
let client: Client<typeof AuthEventService>;

beforeAll(async () => {
  env = await startTestEnv();
  client = createClient(AuthEventService, createRouterTransport(ceremonyRoutes(env.deps), { router: { interceptors: serviceInterceptors({ logger: silent, metrics: createMetrics('auth-events-test') }) } }));
});
afterAll(() => env?.close());

const report = (over: Record<string, unknown> = {}) => ({
  userId: 'usr-1',
  username: 'ada@example.com',
  eventType: 'login',
  method: 'password',
  status: 'success',
  clientInformation: clientInformation(),
  ...over,
});

const stored = (userId: string, projectId = 'pro-1') => env.store.db.collection<AuthEventRecord>(AUTH_EVENTS).find({ projectId, userId }).toArray();

describe('auth events', () => {
  it('are recorded with the reference fields, the client kept without its fingerprint, expiring after the retention', async () => {
    const { authEvent } = await client.createAuthEvent(report({ method: 'social_google', eventType: 'sign_up' }), as('pro-1'));
    expect(authEvent).toMatchObject({ userId: 'usr-1', username: 'ada@example.com', eventType: 'sign_up', method: 'social_google', status: 'success' });
    expect(authEvent!.authEventId).toMatch(/^aev-[0-9]{20}$/);
    expect(authEvent!.created).toBe(env.clock.now().toISOString().slice(0, 19));
    const doc = (await stored('usr-1')).find((e) => e._id === authEvent!.authEventId)!;
    expect(doc.client).toEqual({ userAgent: clientInformation().userAgent, remoteAddress: clientInformation().remoteAddress });
    // The fake connect sends no retention: the default 90 days.
    expect(doc.expiresAt.getTime() - doc.createdAt.getTime()).toBe(90 * 86_400_000);
  });

  it('take every enum value of the reference', async () => {
    for (const eventType of ['sign_up', 'login', 'new_passkey_added']) await client.createAuthEvent(report({ eventType }), as('pro-1'));
    for (const method of ['password', 'email_otp', 'email_link', 'phone_otp', 'passkey', 'social_github', 'social_google', 'social_microsoft']) await client.createAuthEvent(report({ method }), as('pro-1'));
    for (const status of ['success', 'failure']) await client.createAuthEvent(report({ status }), as('pro-1'));
  });

  it('refuse bad input with 400 naming the field, and store nothing', async () => {
    const before = (await stored('usr-2')).length;
    const cases: [Record<string, unknown>, string][] = [
      [{ eventType: 'logout' }, 'eventType'],
      [{ method: 'sms' }, 'method'],
      [{ status: 'ok' }, 'status'],
      [{ username: '' }, 'username'],
      [{ username: '   ' }, 'username'],
      [{ userId: 'ada' }, 'userID'],
      [{ clientInformation: undefined }, 'clientInformation'],
    ];
    for (const [over, field] of cases) {
      const f = await failure(client.createAuthEvent(report({ userId: 'usr-2', ...over }), as('pro-1')));
      expect(f.code, field).toBe(Code.InvalidArgument);
      expect(f.fields.join(','), field).toContain(field);
    }
    expect(await stored('usr-2')).toHaveLength(before);
  });

  it('of another project\'s user (or none) are not found', async () => {
    // usr-7 exists in pro-1 only.
    expect(await failure(client.createAuthEvent(report({ userId: 'usr-7' }), as('pro-2')))).toMatchObject({ code: Code.NotFound, type: 'user_not_found' });
    expect(await failure(client.createAuthEvent(report({ userId: 'usr-404' }), as('pro-1')))).toMatchObject({ code: Code.NotFound, type: 'user_not_found' });
    expect(await stored('usr-7', 'pro-2')).toEqual([]);
  });

  it('keep only a user\'s newest events', async () => {
    for (let i = 0; i < MAX_AUTH_EVENTS_PER_USER + 5; i++) {
      await client.createAuthEvent(report({ userId: 'usr-7', username: `n${i}` }), as('pro-1'));
      env.clock.advance(1000);
    }
    const kept = await stored('usr-7');
    expect(kept).toHaveLength(MAX_AUTH_EVENTS_PER_USER);
    expect(kept.map((e) => e.username)).not.toContain('n4');
    expect(kept.map((e) => e.username)).toContain('n5');
    expect(await env.deps.authEvents.listRecent('pro-1', 'usr-7', 1)).toMatchObject([{ username: `n${MAX_AUTH_EVENTS_PER_USER + 4}` }]);
  });

  it('go with their user', async () => {
    await client.createAuthEvent(report({ userId: 'usr-2' }), as('pro-1'));
    await deleteUserCredentials(env.deps, 'pro-1', 'usr-2');
    expect(await stored('usr-2')).toEqual([]);
  });
});
