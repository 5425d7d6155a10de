/**
 * Key rotation during rolling restarts: while a Deployment restarts, processes of the previous and
 * the next INTERNAL_AUTH_KEYS run side by side and call each other in every direction. The order
 * `OLD` → `OLD,NEW` → `NEW,OLD` → `NEW` refuses no call at any step; skipping the middle step
 * (`OLD` → `NEW,OLD`, the order documented before) refuses calls from updated processes to
 * processes not yet restarted.
 */
import { randomBytes } from 'node:crypto';
import { Code, createClient, createRouterTransport } from '@connectrpc/connect';
import { describe, expect, it } from 'vitest';
import { UserService } from '../../../gen/passkeyauth/connect/v1/user_service_pb.js';
import { callerAuthInterceptor, internalAuthInterceptor, internalTokenSource, parseInternalAuthKeys } from '../internalAuth.js';
import { settleToCode } from './settleToCode.js';

const KEYS: Record<string, string> = { OLD: randomBytes(32).toString('hex'), NEW: `base64:${randomBytes(32).toString('base64')}` };
/** INTERNAL_AUTH_KEYS for a configuration written with key names: "NEW,OLD". */
const configOf = (names: string) => names.split(',').map((n) => KEYS[n]).join(',');

/** A call from a process configured with `callerKeys` to a connect process configured with `serviceKeys` (key names). */
async function call(callerKeys: string, serviceKeys: string): Promise<string> {
  const tokens = internalTokenSource(parseInternalAuthKeys(configOf(callerKeys)), 'gateway');
  const transport = createRouterTransport((router) => router.service(UserService, { getUser: (req) => ({ user: { userId: req.userId } }) }), {
    router: { interceptors: [internalAuthInterceptor({ keys: parseInternalAuthKeys(configOf(serviceKeys)), service: 'connect', logger: { warn: () => undefined } })] },
    transport: { interceptors: [callerAuthInterceptor(() => tokens('connect'))] },
  });
  return String(await settleToCode(createClient(UserService, transport).getUser({ userId: 'usr-1' })));
}

/** Every call between two configurations that coexist during one rolling restart, either way. */
async function refusedDuringRestart(from: string, to: string): Promise<string[]> {
  const refused: string[] = [];
  for (const [caller, service] of [
    [from, from],
    [from, to],
    [to, from],
    [to, to],
  ]) {
    if ((await call(caller, service)) !== 'ok') refused.push(`${caller} → ${service}`);
  }
  return refused;
}

describe('rotating INTERNAL_AUTH_KEYS', () => {
  it('OLD → OLD,NEW → NEW,OLD → NEW: no call is refused while two adjacent configurations run side by side', async () => {
    const steps = ['OLD', 'OLD,NEW', 'NEW,OLD', 'NEW'];
    for (let i = 1; i < steps.length; i++) expect({ step: i, refused: await refusedDuringRestart(steps[i - 1], steps[i]) }).toEqual({ step: i, refused: [] });
  });

  it('OLD → NEW,OLD refuses calls of the restarted processes to the others, and after the rotation the old key is refused', async () => {
    expect(await refusedDuringRestart('OLD', 'NEW,OLD')).toEqual(['NEW,OLD → OLD']);
    expect(await call('OLD', 'NEW')).toBe(String(Code.Unauthenticated));
  });
});
