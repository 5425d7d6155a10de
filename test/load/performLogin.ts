/** The login ceremony: B4 login start → the user's authenticator signs → B5 login finish. */
import { expectOk } from './createJsonClient.js';
import type { BenchTarget, PasskeyUser } from './registerPasskeyUser.js';

export async function performLogin(target: BenchTarget, user: PasskeyUser, processID: string): Promise<void> {
  const { userID, clientInformation } = user;
  const start = await expectOk(
    'B4 login start',
    target.client.call('POST', '/v2/passkey/login/start', { userID, processID, clientInformation, crossDeviceAuthenticationStrategy: 'standard' }),
  );
  const assertion = user.auth.getFromOptions(start.assertionOptions as string, user.credential, target.origin);
  await expectOk(
    'B5 login finish',
    target.client.call('POST', '/v2/passkey/login/finish', { userID, processID, assertionResponse: JSON.stringify(assertion), trackingID: 'bench-login', clientInformation }),
  );
}
