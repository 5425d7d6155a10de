/**
 * The connect login as @corbado/connect-react runs it in the page: F5 login init (a process token,
 * and a conditional-UI challenge for a capable browser) → F8 login start with the identifier → the
 * user's authenticator signs → F9 login finish (a session token and signedPasskeyData). Frontend
 * API calls with the web SDK's headers; no Authorization.
 */
import { expectOk } from './createJsonClient.js';
import type { BenchTarget, PasskeyUser } from './registerPasskeyUser.js';

/** A browser that can do everything with passkeys (so init offers the login and a conditional-UI challenge). */
const CAPABLE_BROWSER = {
  bluetoothAvailable: false,
  isUserVerifyingPlatformAuthenticatorAvailable: true,
  isConditionalMediationAvailable: true,
  clientCapabilities: { conditionalGet: true, conditionalMediation: true, hybridTransport: true, passkeyPlatformAuthenticator: true, userVerifyingPlatformAuthenticator: true },
  javaScriptHighEntropy: { platform: 'macOS', platformVersion: '15.0.0', mobile: false },
  webdriver: false,
  privateMode: false,
};
const USER_AGENT = 'Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/130.0 Safari/537.36';

export interface ConnectLoginUser extends PasskeyUser {
  /** The claimed identifier the application gave the user (what the page's login field sends). */
  identifier: string;
}

export async function performConnectLogin(target: BenchTarget, user: ConnectLoginUser, visitorId: string): Promise<void> {
  const frontend = target.frontend;
  if (!frontend) throw new Error('the connect-login scenario needs the frontend API (BenchTarget.frontend)');
  const headers = { 'x-corbado-projectid': frontend.projectId, origin: target.origin, 'user-agent': USER_AGENT };
  const init = await expectOk('F5 login init', frontend.client.call('POST', '/v2/connect/login/init', { clientInformation: { ...CAPABLE_BROWSER, visitorId }, flags: {} }, headers));
  const process = { ...headers, 'x-corbado-process-id': init.token as string };
  const start = await expectOk('F8 login start', frontend.client.call('POST', '/v2/connect/login/start', { identifier: user.identifier, source: 'text-field', loadedMs: 300 }, process));
  const assertion = user.auth.getFromOptions(start.assertionOptions as string, user.credential, target.origin);
  const finish = await expectOk('F9 login finish', frontend.client.call('POST', '/v2/connect/login/finish', { isConditionalUI: false, assertionResponse: JSON.stringify(assertion), loadedMs: 900 }, process));
  if (!finish.session || !finish.signedPasskeyData) throw new Error(`F9 login finish answered without session or signedPasskeyData: ${JSON.stringify(finish)}`);
}
