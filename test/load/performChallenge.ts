/**
 * The challenge ceremony: B1 creates an email OTP for the user, then PATCH verifies it. The code is
 * taken from B1's answer (its `value` field), which is exactly what the application backend gets
 * under the default "app" challenge delivery: the application sends the code itself and checks what
 * the user typed. Nothing is read from the store.
 */
import { createHash } from 'node:crypto';
import { backendClientInformation } from '../kit/startStack.js';
import { expectOk } from './createJsonClient.js';
import type { BenchTarget } from './registerPasskeyUser.js';

/**
 * Each simulated user at an address of its own (documentation range 2001:db8::/32), as the end
 * users of a real application are: the service limits verification attempts per end-user address.
 */
export function endUserAddress(userID: string): string {
  const h = createHash('sha256').update(userID).digest('hex');
  return `2001:db8:${h.slice(0, 4)}:${h.slice(4, 8)}::1`;
}

export async function performChallenge(target: BenchTarget, userID: string, identifierValue: string): Promise<void> {
  const clientInformation = { ...backendClientInformation, remoteAddress: endUserAddress(userID) };
  const created = await expectOk(
    'B1 create challenge',
    target.client.call('POST', `/v2/users/${userID}/challenges`, { challengeType: 'email_otp', identifierValue, clientInformation }),
  );
  const verified = await expectOk('PATCH verify challenge', target.client.call('PATCH', `/v2/users/${userID}/challenges/${created.challengeID}`, { value: created.value }));
  if (verified.status !== 'completed') throw new Error(`PATCH verify challenge: status ${JSON.stringify(verified.status)}, expected "completed"`);
}
