/**
 * What every demo page shares: its configuration, calls to the auth service's frontend API and to
 * this demo's server, the browser description the API asks for, and error messages for people.
 */
import { browserSupportsWebAuthnAutofill, platformAuthenticatorIsAvailable, WebAuthnError } from '@simplewebauthn/browser';

export interface DemoConfig {
  projectID: string;
  frontendApiUrl: string;
  /** The mail catcher's inbox ("" when there is none). */
  mailInboxUrl: string;
  /**
   * `frontendApiUrlSuffix` for the published web SDKs, which call https://{projectID}.{suffix}
   * (`localhost:8443`, the TLS front of `npm start`; "" when there is none).
   */
  webSdkUrlSuffix: string;
}

/** Public values only, written into the page by the demo server. */
export const config = JSON.parse(document.getElementById('demo-config')!.textContent!) as DemoConfig;

export function byId<T extends HTMLElement = HTMLElement>(id: string): T {
  const el = document.getElementById(id);
  if (!el) throw new Error(`the page has no #${id}`);
  return el as T;
}

export function show(el: HTMLElement, visible: boolean): void {
  el.hidden = !visible;
}

/** An answer that is not 2xx, from the auth service (`error.type`) or the demo server (`error.code`). */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly type: string,
    readonly details: string,
  ) {
    super(`${status} ${type}: ${details}`);
  }
}

interface CallOptions {
  method?: string;
  body?: unknown;
  /** Process token of the flow (x-corbado-process-id). */
  process?: string;
  /** Authorization: Bearer (session or refresh token). */
  bearer?: string;
}

/** A call to the auth service's frontend API, as the published web SDK makes it. */
export async function frontendApi<T = Record<string, any>>(path: string, opts: CallOptions = {}): Promise<T> {
  const headers: Record<string, string> = { 'X-Corbado-ProjectID': config.projectID };
  if (opts.body !== undefined) headers['content-type'] = 'application/json';
  if (opts.process) headers['x-corbado-process-id'] = opts.process;
  if (opts.bearer) headers.authorization = `Bearer ${opts.bearer}`;
  let res: Response;
  try {
    res = await fetch(`${config.frontendApiUrl}${path}`, { method: opts.method ?? 'POST', headers, body: opts.body === undefined ? undefined : JSON.stringify(opts.body) });
  } catch {
    throw new ApiError(0, 'network_error', `cannot reach the auth service at ${config.frontendApiUrl}; is the local stack running?`);
  }
  const text = await res.text();
  const json = text ? (JSON.parse(text) as Record<string, any>) : {};
  if (!res.ok) throw new ApiError(res.status, json.error?.type ?? `http_${res.status}`, json.error?.details || json.message || res.statusText);
  return json as T;
}

/** A call to this demo's own server (`/api/*`); it answers errors as {error: {code, message}}. */
export async function demoApi<T = Record<string, any>>(path: string, opts: Omit<CallOptions, 'process'> = {}): Promise<T> {
  const headers: Record<string, string> = {};
  if (opts.body !== undefined) headers['content-type'] = 'application/json';
  if (opts.bearer) headers.authorization = `Bearer ${opts.bearer}`;
  let res: Response;
  try {
    res = await fetch(path, { method: opts.method ?? (opts.body === undefined ? 'GET' : 'POST'), headers, body: opts.body === undefined ? undefined : JSON.stringify(opts.body) });
  } catch {
    throw new ApiError(0, 'network_error', 'cannot reach the demo server');
  }
  const json = (await res.json().catch(() => ({}))) as Record<string, any>;
  if (!res.ok) throw new ApiError(res.status, json.error?.code ?? `http_${res.status}`, json.error?.message ?? res.statusText);
  return json as T;
}

// Per project: the pages use two projects (docs/architecture.md, "The demo"), and a handle is
// only known to the project that issued it.
const CLIENT_ENV_KEY = `clientEnvHandle:${config.projectID}`;
const CAPABILITIES = [
  'conditionalCreate',
  'conditionalGet',
  'conditionalMediation',
  'hybridTransport',
  'passkeyPlatformAuthenticator',
  'userVerifyingPlatformAuthenticator',
  'relatedOrigins',
  'signalAllAcceptedCredentials',
  'signalCurrentUserDetails',
  'signalUnknownCredential',
];

/** The browser as the frontend API's `clientInformation` describes it (what the web SDK sends). */
export async function clientInformation(): Promise<Record<string, unknown>> {
  const [uvpa, conditional] = await Promise.all([platformAuthenticatorIsAvailable(), browserSupportsWebAuthnAutofill()]);
  const clientCapabilities: Record<string, boolean> = {};
  try {
    const pkc = window.PublicKeyCredential as unknown as { getClientCapabilities?: () => Promise<Record<string, boolean>> } | undefined;
    const caps = (await pkc?.getClientCapabilities?.()) ?? {};
    for (const key of CAPABILITIES) if (typeof caps[key] === 'boolean') clientCapabilities[key] = caps[key];
  } catch {
    // Older browsers have no getClientCapabilities(); the two answers above are enough.
  }
  const handle = localStorage.getItem(CLIENT_ENV_KEY);
  return {
    isUserVerifyingPlatformAuthenticatorAvailable: uvpa,
    isConditionalMediationAvailable: conditional,
    clientCapabilities,
    ...(handle ? { clientEnvHandle: handle } : {}),
  };
}

/** Keeps the client environment handle an answer issued, so this browser is recognized next time. */
export function rememberClientEnv(answer: { newClientEnvHandle?: string }): void {
  if (answer.newClientEnvHandle) localStorage.setItem(CLIENT_ENV_KEY, answer.newClientEnvHandle);
}

/**
 * True when this page itself ended the WebAuthn request (WebAuthnAbortService: the user chose the
 * code instead, started over, or a newer request replaced it). That is no failure to report; a
 * dialog the user closed (NotAllowedError) is, so it is not included here.
 */
export function abortedByPage(err: unknown): boolean {
  return err instanceof WebAuthnError && err.code === 'ERROR_CEREMONY_ABORTED';
}

/** True when the user closed the passkey dialog, or a newer request replaced this one. */
export function isCancelled(err: unknown): boolean {
  if (!(err instanceof Error)) return false;
  if (abortedByPage(err)) return true;
  const name = err instanceof WebAuthnError && err.cause instanceof Error ? err.cause.name : err.name;
  return name === 'NotAllowedError' || name === 'AbortError';
}

const API_MESSAGES: Record<string, string> = {
  network_error: '',
  origin_mismatch: "This page's address is not one of the project's allowed origins.",
  rp_id_mismatch: "The passkey belongs to another site (RP ID) than this project's.",
  challenge_expired: 'That took too long and the request expired. Please try again.',
  challenge_not_found_or_used: 'This passkey request was already used or has expired. Please try again.',
  user_verification_missing: 'Your device did not verify you (PIN, fingerprint or face). Please try again.',
  passkey_already_exists: 'This passkey is already registered.',
  credential_not_found: 'This passkey is not registered (any more).',
  credential_deleted: 'This passkey was deleted on the server. Sign in another way.',
  token_expired: 'Your session has expired. Please sign in again.',
  session_ended: 'Your session has ended. Please sign in again.',
  invalid_token: 'Your session is not valid. Please sign in again.',
  rate_limited: 'Too many attempts. Wait a moment, then try again.',
  resend_too_early: 'A code was sent a moment ago. Wait a few seconds before asking for another one.',
  process_expired: 'This sign-in took too long. Please start over.',
  process_completed: 'This sign-in is already finished. Please start over.',
  invalid_block: 'This step is no longer current. Please start over.',
  cors_origin_not_allowed: "The auth service does not allow this page's origin for the project.",
  connect_token_consumed: 'That authorization was already used. Please try again.',
  connect_token_expired: 'That authorization expired. Please try again.',
};

/** A sentence for the person in front of the page, with the machine-readable code for developers. */
export function describeError(err: unknown): string {
  if (err instanceof ApiError) {
    const text = API_MESSAGES[err.type] || sentence(err.details);
    return err.type === 'network_error' ? text : `${text} (${err.type})`;
  }
  if (err instanceof WebAuthnError) {
    switch (err.code) {
      case 'ERROR_CEREMONY_ABORTED':
        return 'The passkey request was cancelled.';
      case 'ERROR_AUTHENTICATOR_PREVIOUSLY_REGISTERED':
        return 'This device already has a passkey for this account; you can sign in with it.';
      case 'ERROR_INVALID_DOMAIN':
        return 'Passkeys need a secure page: https, or http://localhost.';
      case 'ERROR_INVALID_RP_ID':
        return `The passkey request is for another site than ${location.hostname} (RP ID mismatch).`;
      default:
        if (isCancelled(err)) return 'The passkey dialog was closed or timed out, or no passkey was available.';
        return sentence(err.message);
    }
  }
  if (err instanceof Error) {
    if (isCancelled(err)) return 'The passkey dialog was closed or timed out, or no passkey was available.';
    if (/WebAuthn is not supported/.test(err.message)) return 'This browser does not support passkeys.';
    return sentence(err.message);
  }
  return String(err);
}

/** "the value is wrong" → "The value is wrong." */
export function sentence(text: string): string {
  const t = text.trim();
  if (!t) return 'Something went wrong.';
  return `${t[0]!.toUpperCase()}${t.slice(1)}${/[.!?]$/.test(t) ? '' : '.'}`;
}

/**
 * The page's status line (role=status) and error box (role=alert). Both stay in the page and only
 * their text changes, which is what screen readers announce; an empty box takes no space (CSS).
 */
export function messages(statusId: string, errorId: string) {
  const status = byId(statusId);
  const error = byId(errorId);
  return {
    status(text: string) {
      status.textContent = text;
    },
    error(err: unknown) {
      error.textContent = typeof err === 'string' ? err : describeError(err);
    },
    clearError() {
      error.textContent = '';
    },
  };
}

/** Disables a button while its action runs, so a double click starts nothing twice. */
export async function busy<T>(button: HTMLButtonElement, action: () => Promise<T>): Promise<T> {
  button.disabled = true;
  button.setAttribute('aria-busy', 'true');
  try {
    return await action();
  } finally {
    button.disabled = false;
    button.removeAttribute('aria-busy');
  }
}

/** A time in the reader's locale ("—" for none). */
export function formatTime(ms: number | undefined): string {
  return ms ? new Date(ms).toLocaleString() : '—';
}
