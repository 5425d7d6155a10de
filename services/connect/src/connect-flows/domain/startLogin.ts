/**
 * F8: assertion options over the passkeys of the user an identifier names. Whenever a passkey
 * login is not possible (unknown identifier, no passkeys, login not allowed for this client or
 * user) the answer is a 200 with fallbackOperationError.initFallback, so the page falls back to
 * the application's own login. Unknown identifiers and users without passkeys get the same
 * answer, so the endpoint does not tell which identifiers are registered.
 */
import type { LoginStartRecord } from '../store/processes.js';
import { findActiveProcess } from './findActiveProcess.js';
import { describeClient, type FlowCall } from '../../shared/domain/flowCall.js';
import type { ConnectFlowDeps } from './flowDeps.js';
import { classifyIdentifier, findUserByIdentifier } from '../../users/index.js';

export interface LoginStartInput {
  identifier: string;
  source: string;
  loadedMs: number;
  loginConnectToken: string;
  identifierHintAvailable?: boolean;
  oneTapMeta?: { ts: number; source: string };
}

export interface Fallback {
  initFallback: boolean;
  identifier?: string;
  error?: { code: string; message: string };
}

export interface StartedLogin {
  assertionOptions: string;
  isCDA: boolean;
  fallback: Fallback;
  preferImmediatelyAvailable?: boolean;
}

const UNAVAILABLE = { code: 'passkey_login_unavailable', message: 'no passkey login is possible for this identifier here; use the application login' };

export async function startLogin(deps: ConnectFlowDeps, call: FlowCall, input: LoginStartInput): Promise<StartedLogin> {
  const process = await findActiveProcess(deps, call, 'login');
  const now = deps.now();
  const record = (outcome: string): LoginStartRecord => ({
    at: now,
    source: input.source,
    loadedMs: input.loadedMs,
    ...(input.identifierHintAvailable !== undefined ? { identifierHintAvailable: input.identifierHintAvailable } : {}),
    ...(input.oneTapMeta ? { oneTapMeta: input.oneTapMeta } : {}),
    loginConnectTokenPresented: input.loginConnectToken !== '',
    outcome,
  });
  const fallback = async (outcome: string, error = UNAVAILABLE): Promise<StartedLogin> => {
    await deps.processes.recordLoginStart(call.projectId, process._id, record(outcome), {}, now);
    return { assertionOptions: '', isCDA: false, fallback: { initFallback: true, identifier: input.identifier, error } };
  };

  if (!process.allowed) return fallback('login_not_allowed', { code: 'login_not_allowed', message: 'passkey login is not offered to this client' });
  const identifier = classifyIdentifier(input.identifier);
  if (!identifier) return fallback('unknown_identifier');
  const user = await findUserByIdentifier(deps, call.projectId, identifier);
  if (!user) return fallback('unknown_identifier');
  if (user.status === 'disabled') return fallback('user_disabled');

  const started = await deps.ceremony.startLogin(call, { userId: user._id, client: describeClient(process, call), crossDeviceAuthenticationStrategy: 'standard', processId: process._id });
  const decision = started.decisionInsights;
  if (!started.loginAllow) return fallback(decision?.tag || 'login_not_allowed');

  await deps.processes.recordLoginStart(call.projectId, process._id, record('assertion'), { userId: user._id, identifier }, now);
  return {
    assertionOptions: started.assertionOptions,
    isCDA: decision?.isCdaCandidate ?? false,
    fallback: { initFallback: false },
    ...(decision ? { preferImmediatelyAvailable: decision.preferImmediatelyAvailable } : {}),
  };
}
