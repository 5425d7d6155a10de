/**
 * F5/F6/F7: starts a connect process. Resolves the client environment, evaluates the project's
 * roll-out (with the invitation, if any) and the client's capabilities, stores the process and
 * returns its token, which expires with it. Login processes also get a conditional-UI challenge.
 */
import { newId } from '../../../../runtime/ids.js';
import { type ConnectRollout, getProject, signProcessToken } from '../../projects/index.js';
import { describeClient, type FlowCall } from '../../shared/domain/flowCall.js';
import { PROCESS_LIFETIME_SECONDS } from '../../shared/domain/limits.js';
import { resolveClientEnv } from '../../shared/domain/resolveClientEnv.js';
import type { ClientEnvRecord } from '../../shared/store/clientEnvs.js';
import type { ClientSnapshot } from '../../shared/store/clientSnapshot.js';
import type { ConnectFlow, ProcessRecord } from '../store/processes.js';
import { checkClientFlags } from './checkClientFlags.js';
import { decideFlowAllowed } from './decideFlowAllowed.js';
import type { ConnectFlowDeps } from './flowDeps.js';
import { isValidInvitation } from './invitations.js';

/** The flag connect UIs read to decide whether to start passkey autofill. */
export const CONDITIONAL_UI_FLAG = 'conditional-ui-allowed';

export interface InitFlowInput {
  flow: ConnectFlow;
  /** What the browser said about itself. */
  client: ClientSnapshot;
  /** The client environment handle the browser holds from an earlier answer, if any. */
  clientEnvHandle: string | undefined;
  /** The client's flags as it sent them (a JSON object; checked by checkClientFlags). */
  flags: Record<string, unknown>;
  invitationToken: string;
  situation?: string;
}

export interface InitializedFlow {
  processToken: string;
  /** Seconds since the Unix epoch. */
  expiresAt: number;
  frontendApiUrl: string;
  allowed: boolean;
  flags: Record<string, string>;
  newClientEnvHandle?: string;
  newClientState?: string;
  conditionalUIChallenge?: string;
}

export async function initFlow(deps: ConnectFlowDeps, call: FlowCall, input: InitFlowInput): Promise<InitializedFlow> {
  const flags = checkClientFlags(input.flags);
  const project = await getProject(deps, call.projectId);
  const client = input.client;
  const { env, issued } = await resolveClientEnv(deps, call.projectId, input.clientEnvHandle, client.visitorId);
  const invited = await isValidInvitation(deps, call.projectId, input.invitationToken);
  const allowed = decideFlowAllowed(input.flow, client, isRolloutOpen(project.connectRollout ?? 'everyone', invited));

  const now = deps.now();
  const lifetime = PROCESS_LIFETIME_SECONDS[input.flow];
  // Whole seconds, so the stored expiry and the token's `exp` are the same instant.
  const expiresAt = Math.floor(now.getTime() / 1000) + lifetime;
  const process: ProcessRecord = {
    _id: newId('cpr'),
    projectId: call.projectId,
    flow: input.flow,
    status: 'active',
    allowed,
    clientEnvHandle: env.handle,
    client,
    userAgent: call.userAgent,
    remoteAddress: call.clientAddress,
    invited,
    ...(input.situation ? { situation: input.situation } : {}),
    createdAt: now,
    updatedAt: now,
    expiresAt: new Date(expiresAt * 1000),
  };
  await deps.processes.insert(process);
  const processToken = await signProcessToken(deps, call.projectId, process._id, 'connect', expiresAt - Math.floor(deps.now().getTime() / 1000) || 1);

  const result: InitializedFlow = {
    processToken,
    expiresAt,
    frontendApiUrl: project.frontendApiUrl,
    allowed,
    flags: mergeFlags(flags, project.connectFlags),
  };
  if (issued) result.newClientEnvHandle = env.handle;
  else if (input.flow !== 'manage') {
    const state = encodeClientState(env);
    if (state) result.newClientState = state;
  }
  if (input.flow === 'login') {
    if (allowed && client.conditionalMediationAvailable) {
      const started = await deps.ceremony.startMediation(call, { client: describeClient(process, call), processId: process._id });
      if (started.loginAllow) result.conditionalUIChallenge = started.assertionOptions;
    }
    // The published connect UI (@corbado/connect-react) starts autofill only when this flag is
    // "true", and the web SDK keeps flags between inits, so it always says what this answer's
    // conditionalUIChallenge says. A project flag of the same name still wins.
    if (project.connectFlags?.[CONDITIONAL_UI_FLAG] === undefined) result.flags[CONDITIONAL_UI_FLAG] = result.conditionalUIChallenge ? 'true' : 'false';
  }
  return result;
}

/**
 * The flags of a connect init: the client's (checkClientFlags.ts) merged with the project's own,
 * which win, so a project can switch a client-side behaviour for every client at once.
 */
function mergeFlags(client: Record<string, string>, project: Record<string, string> | undefined): Record<string, string> {
  return { ...client, ...(project ?? {}) };
}

/**
 * The project's connect roll-out, which comes before the client's capabilities
 * (decideFlowAllowed.ts): "nobody" closes every flow, "invited" opens them only for clients that
 * present a valid invitation, "everyone" for all.
 */
function isRolloutOpen(rollout: ConnectRollout, invited: boolean): boolean {
  if (rollout === 'nobody') return false;
  if (rollout === 'invited') return invited;
  return true;
}

/**
 * newClientState: client state the web SDK merges into its local storage (ClientStateService
 * .enrichFromURL: base64 of JSON, each entry {data, source, ts} taken only if newer than its own).
 * We send the last passkey operation completed in this client environment, so the SDK's one-tap
 * hint comes back after its storage lost it; only for environments the client proved it holds.
 */
function encodeClientState(env: ClientEnvRecord): string | undefined {
  const last = env.lastLogin;
  if (!last) return undefined;
  const state = {
    lastLogin: {
      data: { operationType: last.operationType, identifierValue: last.identifierValue, identifierType: last.identifierType, ceremonyType: last.ceremonyType },
      source: 'url',
      ts: last.at.getTime(),
    },
  };
  return Buffer.from(JSON.stringify(state), 'utf8').toString('base64');
}
