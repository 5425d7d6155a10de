/**
 * `/account`: the signed-in user, with the session token from sessionStorage. Profile and
 * identifiers from GET /v2/me, passkeys from GET /v2/me/passkeys (add: F3/F4, delete), identifier
 * verification (F11), logout, and the demo server's own check of the session token.
 */
import { startRegistration } from '@simplewebauthn/browser';
import { ApiError, busy, byId, clientInformation, config, demoApi, describeError, messages, rememberClientEnv, show } from './common.js';
import { el, passkeyItem, type Passkey } from './passkeyItem.js';
import { clearSession, hasSession, meApi, refreshSession, secondsLeft, sessionToken } from './session.js';

interface Identifier {
  id: string;
  value: string;
  type: string;
  status: string;
}

const ui = messages('status', 'error');

const APPEND_REFUSED: Record<string, string> = {
  passkey_already_exists: 'This device already has a passkey for your account, so no second one is created here. Sign in with the one you have.',
  passkeys_not_supported: 'This browser or device cannot create a passkey (no platform authenticator was found).',
};

/** The session is over (logged out elsewhere, refresh token reused or expired): back to signed out. */
function sessionOver(err: unknown): boolean {
  if (!(err instanceof ApiError) || err.status !== 401) return false;
  clearSession();
  show(byId('signed-in'), false);
  show(byId('signed-out'), true);
  ui.status('');
  ui.error(`Your session has ended; please sign in again. (${err.type})`);
  return true;
}

function fail(err: unknown): void {
  ui.status('');
  if (!sessionOver(err)) ui.error(err);
}

// --- Profile and identifiers --------------------------------------------------------------------

let verifying: Identifier | null = null;

interface Me {
  id: string;
  fullName: string;
  identifiers: Identifier[];
}

const fetchMe = () => meApi<Me>('/v2/me', { method: 'GET' });

async function loadMe(): Promise<void> {
  renderMe(await fetchMe());
}

function renderMe(me: Me): void {
  byId('user-name').textContent = me.fullName || '—';
  byId('user-email').textContent = me.identifiers.find((i) => i.type === 'email')?.value ?? '—';
  byId('identifiers').replaceChildren(
    ...me.identifiers.map((i) => {
      const li = el('li', { className: 'identifier' });
      li.dataset.id = i.id;
      li.append(
        el('span', { className: 'identifier-value' }, i.value),
        el('span', { className: 'identifier-type' }, i.type),
        el('span', { className: `identifier-status badge ${i.status}` }, i.status),
      );
      if (i.status === 'pending' && (i.type === 'email' || i.type === 'phone')) {
        const button = el('button', { type: 'button', className: 'verify-identifier secondary' }, 'Verify');
        button.setAttribute('aria-label', `Verify ${i.value}`);
        button.addEventListener('click', () => run(button, () => startVerification(i)));
        li.append(button);
      }
      return li;
    }),
  );
}

async function startVerification(identifier: Identifier): Promise<void> {
  ui.status(`Sending a code to ${identifier.value}…`);
  await meApi('/v2/me/identifier/verify/start', { body: { identifierID: identifier.id, clientInformation: await clientInformation() } });
  verifying = identifier;
  byId('verify-text').textContent = `We sent a 6-digit code to ${identifier.value}.`;
  show(byId('verify-mail-banner'), Boolean(config.mailInboxUrl) && identifier.type === 'email');
  if (config.mailInboxUrl) byId<HTMLAnchorElement>('verify-mail-link').href = config.mailInboxUrl;
  byId<HTMLInputElement>('verify-code').value = '';
  show(byId('verify-form'), true);
  byId('verify-code').focus();
  ui.status('Code sent.');
}

async function finishVerification(): Promise<void> {
  const input = byId<HTMLInputElement>('verify-code');
  const code = input.value.trim();
  if (!verifying) return;
  if (!/^[0-9]{6}$/.test(code)) {
    ui.error('Enter the 6 digits of the code.');
    input.focus();
    return;
  }
  ui.status('Checking the code…');
  await meApi('/v2/me/identifier/verify/finish', { body: { identifierID: verifying.id, code } });
  ui.status(`${verifying.value} is verified.`);
  verifying = null;
  show(byId('verify-form'), false);
  await loadMe();
}

// --- Passkeys ------------------------------------------------------------------------------------

const fetchPasskeys = async () => (await meApi<{ passkeys: Passkey[] }>('/v2/me/passkeys', { method: 'GET' })).passkeys;

async function loadPasskeys(): Promise<void> {
  renderPasskeys(await fetchPasskeys());
}

function renderPasskeys(passkeys: Passkey[]): void {
  show(byId('no-passkeys'), passkeys.length === 0);
  byId('passkeys').replaceChildren(
    ...passkeys.map((p) => passkeyItem(p, { itemClass: 'passkey', deleteClass: 'passkey-delete', onDelete: (button, id, name) => run(button, () => deletePasskey(id, name)) })),
  );
}

async function addPasskey(): Promise<void> {
  ui.status('Asking the service for a new passkey…');
  const start = await meApi<{ attestationOptions: string; newClientEnvHandle?: string; appendNotAllowedReason?: string }>('/v2/me/passkeys/append/start', {
    body: { clientInformation: await clientInformation() },
  });
  rememberClientEnv(start);
  if (start.appendNotAllowedReason) {
    ui.status('');
    const reason = start.appendNotAllowedReason;
    ui.error(`${APPEND_REFUSED[reason] ?? 'The service does not offer a passkey here.'} (${reason})`);
    return;
  }
  ui.status('Follow your browser’s prompt to create a passkey…');
  let response;
  try {
    response = await startRegistration({ optionsJSON: JSON.parse(start.attestationOptions).publicKey });
  } catch (err) {
    ui.status('');
    ui.error(`No passkey was created: ${describeError(err)}`);
    return;
  }
  ui.status('Saving your passkey…');
  await meApi('/v2/me/passkeys/append/finish', { body: { attestationResponse: JSON.stringify(response), clientInformation: await clientInformation() } });
  await loadPasskeys();
  ui.status('Passkey added.');
}

async function deletePasskey(id: string, name: string): Promise<void> {
  ui.status(`Deleting passkey ${name}…`);
  await meApi(`/v2/me/passkeys/${encodeURIComponent(id)}`, { method: 'DELETE' });
  await loadPasskeys();
  ui.status(`Passkey ${name} deleted. Your device may still offer it until you remove it there too.`);
}

// --- Session ------------------------------------------------------------------------------------

/** What the demo's server makes of the session token (verified offline against the JWKS). */
async function serverCheck(): Promise<void> {
  const box = byId('server-check');
  try {
    const claims = await demoApi<{ userID: string; name: string; email: string | null; emailVerified: boolean; identifiers: unknown[] }>('/api/session', { bearer: await sessionToken() });
    // The token states an email address only once it is proven; say so rather than show an unproven one.
    const email = claims.email ? `Proven email address: ${claims.email}.` : 'No proven email address yet: verify one above and it appears in the next session token.';
    box.replaceChildren(el('p', { className: 'ok' }, `Valid session of ${claims.name || claims.userID}.`), el('p', {}, email), el('pre', {}, JSON.stringify(claims, null, 2)));
  } catch (err) {
    box.replaceChildren(el('p', { className: 'bad' }, `The server refused the session token: ${describeError(err)}`));
  }
}

let refreshTimer = 0;

/** Renews the session token a minute before it expires, for as long as the page is open. */
function scheduleRefresh(): void {
  window.clearTimeout(refreshTimer);
  const token = sessionStorage.getItem('shortSession');
  if (!token) return;
  const inMs = Math.max(0, (secondsLeft(token) - 60) * 1000);
  refreshTimer = window.setTimeout(() => {
    refreshSession()
      .then(async () => {
        await serverCheck();
        scheduleRefresh();
      })
      .catch(fail);
  }, inMs);
}

async function logout(): Promise<void> {
  ui.status('Logging out…');
  const token = sessionStorage.getItem('shortSession');
  // Ends the session on the service (its refresh token stops working); the page forgets it either way.
  if (token) await meApi('/v2/me/logout', { body: {} }).catch(() => undefined);
  clearSession();
  location.assign('/');
}

/** Runs a button's action, showing its error. */
function run(button: HTMLButtonElement, action: () => Promise<void>): void {
  ui.clearError();
  busy(button, action).catch(fail);
}

byId('add-passkey').addEventListener('click', (e) => run(e.currentTarget as HTMLButtonElement, addPasskey));
byId('logout').addEventListener('click', (e) => run(e.currentTarget as HTMLButtonElement, logout));
byId('verify-form').addEventListener('submit', (e) => {
  e.preventDefault();
  run(byId<HTMLButtonElement>('verify-submit'), finishVerification);
});
byId('verify-cancel').addEventListener('click', () => {
  verifying = null;
  show(byId('verify-form'), false);
  ui.status('');
});

async function main(): Promise<void> {
  if (!hasSession()) {
    show(byId('signed-out'), true);
    ui.status('');
    return;
  }
  show(byId('signed-in'), true);
  try {
    await sessionToken(); // refreshes first if the token is (nearly) expired
    const checked = serverCheck();
    // Both lists appear together, not one after the other.
    const [me, passkeys] = await Promise.all([fetchMe(), fetchPasskeys()]);
    renderMe(me);
    renderPasskeys(passkeys);
    ui.status('');
    await checked;
    scheduleRefresh();
  } catch (err) {
    fail(err);
  }
}

void main();
