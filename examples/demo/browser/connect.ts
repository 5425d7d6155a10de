/**
 * `/connect`: an app with its own password login that adds passkeys with the connect flows.
 * The app's server (this demo's `/api/*`) signs users in with passwords and creates connect tokens
 * for them; the page runs append, login (typed or autofill) and manage against the frontend API
 * and hands the login's signedPasskeyData to the server, which verifies it and signs the user in.
 */
import { startAuthentication, startRegistration, WebAuthnError } from '@simplewebauthn/browser';
import { PasskeyAutofill } from './autofill.js';
import { passkeyItem, type Passkey } from './passkeyItem.js';
import { ApiError, busy, byId, clientInformation, demoApi, describeError, frontendApi, isCancelled, messages, rememberClientEnv, sentence, show } from './common.js';

interface Fallback {
  initFallback: boolean;
  identifier?: string;
  error?: { code: string; message: string };
}

const ui = messages('connect-status', 'connect-error');
const loadedMs = () => Math.round(performance.now());
let appUser: string | null = null;

/** Reports what happened in the browser to the service (insights, cooldowns); best effort. */
function reportEvent(process: string, eventType: string): void {
  frontendApi('/v2/connect/events', { process, body: { eventType } }).catch(() => undefined);
}

// --- The app's own login -------------------------------------------------------------------------

function showAppUser(email: string | null): void {
  appUser = email;
  show(byId('pw-form'), !email);
  show(byId('pw-signed-in'), Boolean(email));
  byId('pw-user').textContent = email ?? '';
  byId<HTMLButtonElement>('connect-append').disabled = !email;
  byId('connect-passkeys-hint').textContent = email ? '' : 'Sign in with your password first.';
  if (!email) byId('connect-passkeys').replaceChildren();
}

async function refreshAppUser(): Promise<void> {
  const { email } = await demoApi<{ email: string | null }>('/api/password/me');
  showAppUser(email);
  if (email) await listPasskeys();
}

async function passwordAction(kind: 'login' | 'register'): Promise<void> {
  const email = byId<HTMLInputElement>('pw-email').value.trim();
  const password = byId<HTMLInputElement>('pw-password').value;
  ui.status(kind === 'login' ? 'Signing in…' : 'Registering…');
  const r = await demoApi<{ email: string }>(`/api/password/${kind}`, { body: { email, password } });
  byId<HTMLInputElement>('pw-password').value = '';
  showAppUser(r.email);
  ui.status(kind === 'login' ? `Signed in to the app as ${r.email}.` : `Registered and signed in as ${r.email}.`);
  await listPasskeys();
}

// --- Append and manage (for the signed-in app user) ----------------------------------------------

async function connectToken(type: 'passkey-append' | 'passkey-list' | 'passkey-delete'): Promise<string> {
  return (await demoApi<{ secret: string }>('/api/connect-token', { body: { type } })).secret;
}

async function appendPasskey(): Promise<void> {
  autofill.stop();
  ui.status('Preparing a new passkey…');
  const init = await frontendApi<{ processID: string; appendAllowed: boolean; newClientEnvHandle?: string }>('/v2/connect/append/init', {
    body: { clientInformation: await clientInformation(), flags: {}, situation: 'default' },
  });
  rememberClientEnv(init);
  const secret = await connectToken('passkey-append');
  // The user asked for it with the button, so the service's append decision is overridden.
  const start = await frontendApi<{ attestationOptions: string }>('/v2/connect/append/start', {
    process: init.processID,
    body: { appendTokenValue: secret, loadedMs: loadedMs(), forcePasskeyAppend: true },
  });
  if (!start.attestationOptions) throw new Error('the service offers no passkey here (this browser reports no platform authenticator)');
  ui.status('Follow your browser’s prompt to create a passkey…');
  let response;
  try {
    response = await startRegistration({ optionsJSON: JSON.parse(start.attestationOptions).publicKey });
  } catch (err) {
    const exists = err instanceof WebAuthnError && err.code === 'ERROR_AUTHENTICATOR_PREVIOUSLY_REGISTERED';
    reportEvent(init.processID, exists ? 'append-credential-exists' : isCancelled(err) ? 'append-explicit-abort' : 'append-error');
    throw new Error(`no passkey was created: ${describeError(err)}`, { cause: err });
  }
  ui.status('Saving your passkey…');
  await frontendApi('/v2/connect/append/finish', { process: init.processID, body: { attestationResponse: JSON.stringify(response), completionType: 'manual' } });
  await listPasskeys();
  ui.status('Passkey added. You can now sign in with it (step 3).');
}

/** The manage process (F7), reused for list and delete while it lives (15 minutes). */
let manage: { processID: string; until: number } | null = null;

async function manageProcess(): Promise<string> {
  if (manage && manage.until > Date.now()) return manage.processID;
  const init = await frontendApi<{ processID: string; manageAllowed: boolean; expiresAt: number; newClientEnvHandle?: string }>('/v2/connect/manage/init', {
    body: { clientInformation: await clientInformation(), flags: {} },
  });
  rememberClientEnv(init);
  if (!init.manageAllowed) throw new Error('passkey management is not enabled for this project');
  manage = { processID: init.processID, until: init.expiresAt * 1000 - 60_000 };
  return manage.processID;
}

async function listPasskeys(): Promise<void> {
  if (!appUser) return;
  const process = await manageProcess();
  const { passkeys } = await frontendApi<{ passkeys: Passkey[] }>('/v2/connect/manage/list', { process, body: { connectToken: await connectToken('passkey-list') } });
  byId('connect-passkeys-hint').textContent = passkeys.length === 0 ? `${appUser} has no passkeys yet.` : '';
  byId('connect-passkeys').replaceChildren(...passkeys.map(connectPasskeyItem));
}

function connectPasskeyItem(p: Passkey): HTMLLIElement {
  return passkeyItem(p, { itemClass: 'connect-passkey', deleteClass: 'connect-delete', onDelete: (button, id, name) => run(button, () => deletePasskey(id, name)) });
}

async function deletePasskey(id: string, name: string): Promise<void> {
  ui.status(`Deleting passkey ${name}…`);
  const process = await manageProcess();
  await frontendApi('/v2/connect/manage/delete', { process, body: { connectToken: await connectToken('passkey-delete'), credentialID: id } });
  await listPasskeys();
  ui.status(`Passkey ${name} deleted.`);
}

// --- Passkey login ---------------------------------------------------------------------------------

async function loginInit(): Promise<{ token: string; loginAllowed: boolean; conditionalUIChallenge?: string }> {
  const init = await frontendApi<{ token: string; loginAllowed: boolean; conditionalUIChallenge?: string; newClientEnvHandle?: string }>('/v2/connect/login/init', {
    body: { clientInformation: await clientInformation(), flags: {} },
  });
  rememberClientEnv(init);
  return init;
}

/** login/finish answered: a fallback to the password, or signedPasskeyData for the app's server. */
async function finishLogin(process: string, assertion: unknown, isConditionalUI: boolean): Promise<void> {
  ui.status('Checking your passkey…');
  let r: { signedPasskeyData: string; fallbackOperationError?: Fallback };
  try {
    r = await frontendApi('/v2/connect/login/finish', {
      process,
      body: { isConditionalUI, assertionResponse: JSON.stringify(assertion), loadedMs: loadedMs() },
    });
  } catch (err) {
    // A passkey deleted on the server (still on the authenticator) is a 404, as the published
    // SDKs expect; the password is the way in then.
    if (err instanceof ApiError && err.status === 404 && err.type === 'credential_deleted') return fallBack({ initFallback: true, error: { code: err.type, message: err.details } });
    throw err;
  }
  if (r.fallbackOperationError?.initFallback) return fallBack(r.fallbackOperationError);
  ui.status('The app’s server is verifying the signed passkey data…');
  const verified = await demoApi<{ userID: string; username: string }>('/api/connect/verify', { body: { signedPasskeyData: r.signedPasskeyData } });
  const result = byId('connect-result');
  const heading = Object.assign(document.createElement('p'), { className: 'ok', textContent: `Signed in with a passkey as ${verified.username}.` });
  const pre = Object.assign(document.createElement('pre'), { textContent: JSON.stringify(verified, null, 2) });
  result.replaceChildren(heading, pre);
  ui.status(`Signed in as ${verified.username}; the app’s server verified the passkey data.`);
  await refreshAppUser();
}

function fallBack(fallback: Fallback): void {
  ui.status('');
  const why = fallback.error ? `${sentence(fallback.error.message)} (${fallback.error.code})` : '';
  ui.error(`${why} Sign in with your password instead.`.trim());
  if (fallback.identifier) byId<HTMLInputElement>('pw-email').value = fallback.identifier;
}

async function typedLogin(): Promise<void> {
  const input = byId<HTMLInputElement>('connect-identifier');
  const identifier = input.value.trim();
  if (!identifier) {
    ui.error('Enter your email address, or pick your passkey from the suggestions of the field.');
    input.focus();
    return;
  }
  // Chromium allows one WebAuthn request at a time: end the autofill one before the modal one.
  autofill.stop();
  ui.status('Looking up your passkeys…');
  const init = await loginInit();
  if (!init.loginAllowed) return fallBack({ initFallback: true, error: { code: 'login_not_allowed', message: 'passkey login is not available in this browser' } });
  const start = await frontendApi<{ assertionOptions: string; fallbackOperationError?: Fallback }>('/v2/connect/login/start', {
    process: init.token,
    body: { identifier, source: 'text-field', loadedMs: loadedMs() },
  });
  if (start.fallbackOperationError?.initFallback) return fallBack({ ...start.fallbackOperationError, identifier });
  ui.status('Follow your browser’s prompt to use your passkey…');
  let assertion;
  try {
    assertion = await startAuthentication({ optionsJSON: JSON.parse(start.assertionOptions).publicKey });
  } catch (err) {
    reportEvent(init.token, isCancelled(err) ? 'login-explicit-abort' : 'login-error');
    throw new Error(`you were not signed in: ${describeError(err)}`, { cause: err });
  }
  await finishLogin(init.token, assertion, false);
}

/** Passkey autofill on #connect-identifier, each request on its own login process (F5's conditionalUIChallenge). */
const autofill = new PasskeyAutofill<string>({
  field: byId('connect-identifier'),
  async request() {
    const init = await loginInit();
    return init.conditionalUIChallenge ? { options: JSON.parse(init.conditionalUIChallenge).publicKey, context: init.token } : null;
  },
  async finish(response, process) {
    ui.clearError();
    try {
      await finishLogin(process, response, true);
    } catch (err) {
      ui.status('');
      ui.error(err);
    }
  },
  onError: (err) => ui.error(err),
});
const startAutofill = () => autofill.start().catch((err) => ui.error(err));

// --- Wiring ----------------------------------------------------------------------------------------

function run(button: HTMLButtonElement, action: () => Promise<void>): void {
  ui.clearError();
  busy(button, action).catch((err) => {
    ui.status('');
    ui.error(err);
  });
}

byId('pw-form').addEventListener('submit', (e) => {
  e.preventDefault();
  run(byId<HTMLButtonElement>('pw-login'), () => passwordAction('login'));
});
byId('pw-register').addEventListener('click', () => run(byId<HTMLButtonElement>('pw-register'), () => passwordAction('register')));
byId('pw-logout').addEventListener('click', () =>
  run(byId<HTMLButtonElement>('pw-logout'), async () => {
    await demoApi('/api/password/logout', { body: {} });
    showAppUser(null);
    byId('connect-result').replaceChildren();
    ui.status('Signed out of the app.');
    if (!autofill.waiting) void startAutofill();
  }),
);
byId('connect-append').addEventListener('click', () => run(byId<HTMLButtonElement>('connect-append'), appendPasskey));
byId('connect-login-form').addEventListener('submit', (e) => {
  e.preventDefault();
  run(byId<HTMLButtonElement>('connect-login'), typedLogin);
});

showAppUser(null);
refreshAppUser()
  .then(() => ui.status(''))
  .catch((err) => ui.error(err));
void startAutofill();
