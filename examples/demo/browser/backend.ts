/**
 * `/backend`: the backend-API ceremonies. The demo's server calls B2–B7 with HTTP Basic; this page
 * only runs the passkey prompt with the options it gets and returns the browser's answer.
 */
import { browserSupportsWebAuthnAutofill, platformAuthenticatorIsAvailable, startAuthentication, startRegistration } from '@simplewebauthn/browser';
import { busy, byId, demoApi, describeError, messages } from './common.js';

const ui = messages('b-status', 'b-error');

function showResult(title: string, value: unknown): void {
  // The authenticator icons are long data URIs; they would only push the rest out of view.
  const shorten = (key: string, v: unknown) => (/^icon(Light|Dark)$/.test(key) && typeof v === 'string' ? `${v.slice(0, 30)}…` : v);
  byId('b-result').textContent = `${title}\n\n${JSON.stringify(value, shorten, 2)}`;
}

/** The capabilities the server adds to its backend clientInformation (with the address and user agent it sees). */
async function clientInformation() {
  return {
    userVerifyingPlatformAuthenticatorAvailable: await platformAuthenticatorIsAvailable(),
    conditionalMediationAvailable: await browserSupportsWebAuthnAutofill(),
  };
}

async function prompt<T>(what: string, ceremony: () => Promise<T>): Promise<T> {
  ui.status(`Follow your browser’s prompt to ${what}…`);
  try {
    return await ceremony();
  } catch (err) {
    throw new Error(`the passkey prompt ended without a passkey: ${describeError(err)}`, { cause: err });
  }
}

async function append(): Promise<void> {
  ui.status('The server is creating a demo user (B2)…');
  const start = await demoApi<{ userID: string; username: string; appendAllow: boolean; attestationOptions: string; decisionInsights?: unknown }>('/api/backend/append/start', {
    body: { clientInformation: await clientInformation() },
  });
  if (!start.appendAllow || !start.attestationOptions) {
    ui.status('');
    showResult(`The service offers no passkey for ${start.username} here (appendAllow: false).`, start.decisionInsights);
    return;
  }
  const response = await prompt('create a passkey', () => startRegistration({ optionsJSON: JSON.parse(start.attestationOptions).publicKey }));
  ui.status('The server is finishing the registration (B3)…');
  const done = await demoApi('/api/backend/append/finish', { body: { attestationResponse: response, clientInformation: await clientInformation() } });
  showResult(`Passkey created for ${start.username} (${start.userID}). B3 answered:`, done);
  ui.status('Passkey created. Now log in with it.');
}

async function login(): Promise<void> {
  ui.status('The server is starting the login (B4)…');
  const start = await demoApi<{ userID: string; loginAllow: boolean; assertionOptions: string; decisionInsights?: unknown }>('/api/backend/login/start', {
    body: { clientInformation: await clientInformation() },
  });
  if (!start.loginAllow) {
    ui.status('');
    showResult('The service offers no passkey login for this user here (loginAllow: false).', start.decisionInsights);
    return;
  }
  const response = await prompt('use your passkey', () => startAuthentication({ optionsJSON: JSON.parse(start.assertionOptions).publicKey }));
  ui.status('The server is checking the passkey (B5)…');
  const done = await demoApi('/api/backend/login/finish', { body: { assertionResponse: response, clientInformation: await clientInformation() } });
  showResult(`Logged in as ${start.userID}. B5 answered:`, done);
  ui.status('Logged in.');
}

async function anyPasskey(): Promise<void> {
  ui.status('The server is starting a login without a user (B6)…');
  const start = await demoApi<{ loginAllow: boolean; assertionOptions: string }>('/api/backend/mediation/start', { body: { clientInformation: await clientInformation() } });
  // Without allowCredentials the browser offers every passkey it has for this site. (A page would
  // usually run this as autofill, with useBrowserAutofill; a button keeps this demo predictable.)
  const response = await prompt('pick a passkey', () => startAuthentication({ optionsJSON: JSON.parse(start.assertionOptions).publicKey }));
  ui.status('The server is finding out whose passkey it is (B7)…');
  const done = await demoApi<{ passkeyData: { username: string } }>('/api/backend/mediation/finish', { body: { assertionResponse: response, clientInformation: await clientInformation() } });
  showResult(`Logged in as ${done.passkeyData.username}. B7 answered:`, done);
  ui.status('Logged in.');
}

for (const [id, action] of [
  ['b-append', append],
  ['b-login', login],
  ['b-conditional', anyPasskey],
] as const) {
  const button = byId<HTMLButtonElement>(id);
  button.addEventListener('click', () => {
    ui.clearError();
    busy(button, action).catch((err) => {
      ui.status('');
      ui.error(err);
    });
  });
}
