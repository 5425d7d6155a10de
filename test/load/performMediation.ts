/**
 * The conditional-UI login: B6 mediation start (no user named) → the authenticator answers with
 * the discoverable credential and its user handle → B7 mediation finish finds the user.
 */
import { expectOk } from './createJsonClient.js';
import type { BenchTarget, PasskeyUser } from './registerPasskeyUser.js';

export async function performMediation(target: BenchTarget, user: PasskeyUser, processID: string): Promise<void> {
  const { clientInformation } = user;
  const start = await expectOk('B6 mediation start', target.client.call('POST', '/v2/passkey/mediation/start', { processID, clientInformation }));
  const assertion = user.auth.getFromOptions(start.assertionOptions as string, user.credential, target.origin);
  await expectOk(
    'B7 mediation finish',
    target.client.call('POST', '/v2/passkey/mediation/finish', { processID, assertionResponse: JSON.stringify(assertion), trackingID: 'bench-mediation', clientInformation }),
  );
}
