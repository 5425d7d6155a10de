/**
 * Browser page script for the web SDK compatibility test: constructs the published
 * `@corbado/web-core` ConnectService against our gateway (query string: projectId, frontendApiUrl)
 * and exposes its flows on `window.sdk` as async helpers that answer plain JSON, so the test can
 * drive them with page.evaluate. Bundled for the browser by ../sdkPage.ts.
 */
import { ConnectErrorType, ConnectService } from '@corbado/web-core';

/** A ts-results Result flattened to JSON. */
export type PageResult<T = unknown> = { ok: true; val: T } | { ok: false; err: { type: string; message: string } };

interface ResultLike {
  ok: boolean;
  val: unknown;
}

function errJson(type: string, message: unknown): PageResult<never> {
  return { ok: false, err: { type, message: typeof message === 'string' ? message : safeStringify(message) } };
}

function safeStringify(v: unknown): string {
  if (v instanceof Error) return `${v.name}: ${v.message}`;
  try {
    return JSON.stringify(v) ?? String(v);
  } catch {
    return String(v);
  }
}

/** Flattens a Result<T, ConnectError>; the error's type becomes its enum name. */
function flatten(res: ResultLike | undefined): PageResult {
  if (res === undefined) return errJson('NoProcess', 'the SDK found no process in local storage and sent nothing');
  if (res.ok) return { ok: true, val: JSON.parse(JSON.stringify(res.val ?? null)) };
  const e = res.val as { type?: unknown; message?: unknown } | undefined;
  const type = typeof e?.type === 'number' ? (ConnectErrorType[e.type] ?? String(e.type)) : String(e?.type ?? 'unknown');
  return errJson(type, e?.message ?? '');
}

async function guard(fn: () => Promise<ResultLike | undefined> | ResultLike | undefined): Promise<PageResult> {
  try {
    return flatten(await fn());
  } catch (err) {
    return errJson('Thrown', err);
  }
}

const params = new URLSearchParams(location.search);
const projectId = params.get('projectId') ?? '';
const frontendApiUrl = params.get('frontendApiUrl') ?? '';
const connect = new ConnectService(projectId, 'unused.invalid', true, frontendApiUrl);

const sdk = {
  /** What the browser tells the SDK about WebAuthn support. */
  async environment() {
    const pkc = window.PublicKeyCredential;
    return {
      isSecureContext: window.isSecureContext,
      origin: location.origin,
      uvpa: pkc ? await pkc.isUserVerifyingPlatformAuthenticatorAvailable() : false,
      conditionalMediation: pkc && pkc.isConditionalMediationAvailable ? await pkc.isConditionalMediationAvailable() : false,
      projectId,
      frontendApiUrl,
    };
  },
  loginInit: () => guard(() => connect.loginInit(new AbortController())),
  loginStart: (identifier: string, source: string, loadedMs: number) =>
    guard(() => connect.loginStart(identifier, source as Parameters<ConnectService['loginStart']>[1], loadedMs)),
  loginContinue: (startRsp: Parameters<ConnectService['loginContinue']>[0]) => guard(() => connect.loginContinue(startRsp)),
  conditionalUILogin: (loadedMs: number) =>
    guard(() =>
      connect.conditionalUILogin(
        () => undefined,
        () => undefined,
        () => undefined,
        loadedMs,
      ),
    ),
  appendInit: () => guard(() => connect.appendInit(new AbortController())),
  startAppend: (appendToken: string, loadedMs: number, forcePasskeyAppend?: boolean) =>
    guard(() => connect.startAppend(appendToken, loadedMs, undefined, forcePasskeyAppend)),
  completeAppend: (attestationOptions: string, completionType: string) =>
    guard(() => connect.completeAppend(attestationOptions, completionType as Parameters<ConnectService['completeAppend']>[1])),
  manageInit: () => guard(() => connect.manageInit(new AbortController())),
  manageList: (listToken: string, signalAllAccepted = false) => guard(() => connect.manageList(listToken, signalAllAccepted)),
  manageDelete: (deleteToken: string, credentialID: string) => guard(() => connect.manageDelete(deleteToken, credentialID)),
  recordEventAppendExplicitAbort: (attestationOptions?: string) => guard(() => connect.recordEventAppendExplicitAbort(attestationOptions)),
  setInvitation(token: string) {
    connect.setInvitation(token);
    return { ok: true, val: null } as PageResult;
  },
  clearLocalState() {
    localStorage.clear();
    return { ok: true, val: null } as PageResult;
  },
};

export type SdkHelpers = typeof sdk;

declare global {
  interface Window {
    sdk: SdkHelpers;
    sdkReady: boolean;
  }
}

window.sdk = sdk;
window.sdkReady = true;
