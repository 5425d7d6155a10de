/**
 * Browser page script for the sign-up/login compatibility test: constructs the published
 * `@corbado/web-core` CorbadoApp (its ProcessService and SessionService, unchanged) with the
 * query string's projectId and frontendApiUrlSuffix, and exposes the calls on `window.app` as async
 * helpers that answer plain JSON, so the test can drive them with page.evaluate. Bundled for the
 * browser by ../sdkPage.ts (startSdkPage('corbadoAppPage.ts')).
 *
 * CorbadoApp has no custom-domain option: both services address `https://<projectId>.<suffix>`
 * until a configuration answer names the frontend API URL (process-config, session-config), and
 * the process calls then go to the process's `common.frontendApiUrl`.
 */
import { AuthState, BlockType, CorbadoApp, type ProcessResponse } from '@corbado/web-core';

/** A ts-results Result flattened to JSON; an error is a CorbadoError (or a thrown value). */
export type AppResult<T = unknown> = { ok: true; val: T } | { ok: false; err: { name: string; message: string; recoverable?: boolean; ignore?: boolean } };

interface ResultLike {
  ok: boolean;
  val: unknown;
}

function describeError(e: unknown): { name: string; message: string; recoverable?: boolean; ignore?: boolean } {
  if (e instanceof Error) {
    const { recoverable, ignore } = e as Error & { recoverable?: boolean; ignore?: boolean };
    return { name: e.name || e.constructor.name, message: e.message, recoverable, ignore };
  }
  if (e === undefined) return { name: 'undefined', message: '' };
  try {
    return { name: 'unknown', message: JSON.stringify(e) ?? String(e) };
  } catch {
    return { name: 'unknown', message: String(e) };
  }
}

function flatten(res: ResultLike): AppResult {
  if (res.ok) return { ok: true, val: JSON.parse(JSON.stringify(res.val ?? null)) };
  return { ok: false, err: describeError(res.val) };
}

async function guard(fn: () => Promise<ResultLike | null> | ResultLike | null): Promise<AppResult> {
  try {
    const res = await fn();
    if (res === null) return { ok: false, err: { name: 'null', message: 'the SDK answered null' } };
    return flatten(res);
  } catch (err) {
    return { ok: false, err: { ...describeError(err), name: `Thrown ${describeError(err).name}` } };
  }
}

const params = new URLSearchParams(location.search);
const projectId = params.get('projectId') ?? '';
const frontendApiUrlSuffix = params.get('frontendApiUrlSuffix') ?? '';
const corbado = new CorbadoApp({ projectId, frontendApiUrlSuffix, apiTimeout: 15_000 } as ConstructorParameters<typeof CorbadoApp>[0]);
const processes = () => corbado.authProcessService;
const sessions = () => corbado.sessionService;

const app = {
  async environment() {
    const pkc = window.PublicKeyCredential;
    return {
      isSecureContext: window.isSecureContext,
      origin: location.origin,
      uvpa: pkc ? await pkc.isUserVerifyingPlatformAuthenticatorAvailable() : false,
      conditionalMediation: pkc && pkc.isConditionalMediationAvailable ? await pkc.isConditionalMediationAvailable() : false,
      projectId,
      frontendApiUrlSuffix,
    };
  },
  /** CorbadoApp.init(): checks the project ID and initializes the SessionService (GET /v2/session-config). */
  appInit: () => guard(() => corbado.init()),
  /** ProcessService.init(): a new process (process-config, process/init) or the stored one. */
  processInit: (preferredBlock?: string) => guard(() => processes().init(new AbortController(), preferredBlock as BlockType | undefined)),
  initSignup: (email: string, fullName?: string) => guard(() => processes().initSignup([{ type: 'email', identifier: email }], fullName)),
  initLogin: (identifierValue: string, isPhone = false) => guard(() => processes().initLogin(identifierValue, isPhone)),
  appendPasskey: () => guard(() => processes().appendPasskey()),
  finishAuthProcess: () => guard(() => processes().finishAuthProcess()),
  skipBlock: () => guard(() => processes().skipBlock()),
  loginWithPasskey: () => guard(() => processes().loginWithPasskey()),
  isConditionalUISupported: async (): Promise<AppResult<boolean>> => ({ ok: true, val: await processes().isConditionalUISupported() }),
  loginWithPasskeyChallenge: (challenge: string) => guard(() => processes().loginWithPasskeyChallenge(challenge)),
  startEmailCodeVerification: () => guard(() => processes().startEmailCodeVerification()),
  finishEmailCodeVerification: (code: string) => guard(() => processes().finishEmailCodeVerification(code)),
  /** What the email-verify and passkey-append blocks' "change email" does (POST /v2/auth/identifier/update). */
  updateEmail: (email: string) => guard(() => processes().updateEmail(email)),
  /** What the email-link screen polls (GET /v2/auth/identifier/verify/status). */
  getVerificationStatus: () => guard(() => processes().getVerificationStatus()),
  clearProcess(): AppResult {
    processes().clearProcess();
    return { ok: true, val: null };
  },
  /**
   * What @corbado/shared-ui 3.5.0 does with a `completed` block (ProcessHandler.onProcessCompleted):
   * `app.sessionService.setSession(data.sessionToken, data.refreshToken)`.
   */
  setSessionFromCompleted(res: ProcessResponse): AppResult {
    try {
      if (res.blockBody.block !== BlockType.Completed) return { ok: false, err: { name: 'NotCompleted', message: `block is ${res.blockBody.block}` } };
      const data = res.blockBody.data as { sessionToken: string; refreshToken?: string };
      sessions().setSession(data.sessionToken, data.refreshToken);
      return { ok: true, val: null };
    } catch (err) {
      return { ok: false, err: { ...describeError(err), name: `Thrown ${describeError(err).name}` } };
    }
  },
  /** What the SessionService holds. */
  session(): AppResult<{ sessionToken: string | null; user: unknown; authState: string; cookie: string }> {
    return {
      ok: true,
      val: {
        sessionToken: sessions().sessionToken?.value ?? null,
        user: sessions().getUser() ?? null,
        authState: AuthState[sessions().authStateChanges.value] ?? String(sessions().authStateChanges.value),
        cookie: document.cookie,
      },
    };
  },
  getFullUser: () => guard(() => sessions().getFullUser(new AbortController())),
  passkeyList: () => guard(() => sessions().passkeyList(new AbortController())),
  async logout(): Promise<AppResult> {
    try {
      await sessions().logout();
      return { ok: true, val: null };
    } catch (err) {
      return { ok: false, err: { ...describeError(err), name: `Thrown ${describeError(err).name}` } };
    }
  },
  /** The SDK's stored process (localStorage), to see where its calls go. */
  storedProcess(): AppResult {
    const raw = localStorage.getItem(`cbo_auth_process-${projectId}`);
    return { ok: true, val: raw ? JSON.parse(raw) : null };
  },
  storageKeys(): AppResult<string[]> {
    return { ok: true, val: Object.keys(localStorage) };
  },
  clearLocalState(): AppResult {
    localStorage.clear();
    return { ok: true, val: null };
  },
};

export type AppHelpers = typeof app;

declare global {
  interface Window {
    app: AppHelpers;
    appReady: boolean;
  }
}

window.app = app;
window.appReady = true;
