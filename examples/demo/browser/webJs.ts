/**
 * The web-js page: the published @corbado/web-js, unchanged, against this auth service. It loads
 * the SDK with the project ID and the TLS front's URL suffix (the SDK always calls
 * https://{projectID}.{frontendApiUrlSuffix}), mounts the auth UI while signed out and the
 * passkey list while signed in, and has this demo's server verify the SDK's session token.
 */
import corbadoExport from '@corbado/web-js';
import { byId, config, demoApi, describeError, show } from './common.js';

/**
 * web-js's package.json declares no module type, so TypeScript types its default export as a
 * CommonJS module object; esbuild reads the file as the ES module it is, whose default export is
 * the SDK instance.
 */
const Corbado = corbadoExport as unknown as (typeof corbadoExport)['default'];

const status = byId('status');
const error = byId('error');
const authEl = byId('corbado-auth');
const passkeysEl = byId('corbado-passkeys');

async function main(): Promise<void> {
  if (!config.webSdkUrlSuffix) {
    status.textContent = 'The TLS front is off (TLS_FRONT=off), so the SDK has nothing to reach. Start the stack without it.';
    return;
  }
  byId('sdk-url').textContent = `https://${config.projectID}.${config.webSdkUrlSuffix}`;
  await Corbado.load(
    { projectId: config.projectID, frontendApiUrlSuffix: config.webSdkUrlSuffix, darkMode: 'off' },
    // web-js reports UI events to the hosted service's telemetry endpoint unless told not to.
    { disabled: true },
  );
  Corbado.authStateChanges.subscribe(() => void render());
  await render();
}

let shown: 'in' | 'out' | undefined;

async function render(): Promise<void> {
  const signedIn = Boolean(Corbado.isAuthenticated && Corbado.user);
  if (shown === (signedIn ? 'in' : 'out')) return;
  shown = signedIn ? 'in' : 'out';
  status.textContent = signedIn ? 'Signed in with the web SDK.' : 'Sign up or log in with the web SDK.';
  show(byId('signed-out'), !signedIn);
  show(byId('signed-in'), signedIn);
  if (!signedIn) {
    Corbado.unmountPasskeyListUI(passkeysEl);
    Corbado.mountAuthUI(authEl, { onLoggedIn: () => void render() });
    return;
  }
  Corbado.unmountAuthUI(authEl);
  const user = Corbado.user!;
  byId('user-name').textContent = user.name || '—';
  // The session token states an email address only once it is proven (email_verified).
  byId('user-email').textContent = user.email || ((user as { email_verified?: boolean }).email_verified === false ? 'not verified yet' : '—');
  Corbado.mountPasskeyListUI(passkeysEl);
  const check = byId('server-check');
  check.textContent = 'checking…';
  try {
    const answer = await demoApi<{ userID: string }>('/api/session', { bearer: Corbado.sessionToken });
    check.textContent = `valid session of ${answer.userID}`;
  } catch (err) {
    check.textContent = `refused: ${describeError(err)}`;
  }
}

byId<HTMLButtonElement>('logout').addEventListener('click', () => {
  Corbado.logout().then(
    () => void render(),
    (err: unknown) => (error.textContent = describeError(err)),
  );
});

main().catch((err: unknown) => {
  status.textContent = '';
  error.textContent = `The web SDK could not start: ${describeError(err)}`;
});
