/**
 * /v2/connect/append/start: the page presents the secret of a passkey-append connect token its
 * application's server created for the signed-in user. The token is claimed for this process
 * (another process cannot use it), the user is found or created from the token's identifier, and
 * the ceremony service starts the registration. When the insights advise against the append and
 * the user did not ask for it (forcePasskeyAppend), attestationOptions is "": do not offer it.
 */
import { invalidArgument } from '../../../../runtime/errors.js';
import { claimConnectToken } from '../../connect-tokens/index.js';
import { findActiveProcess } from './findActiveProcess.js';
import { describeClient, type FlowCall } from '../../shared/domain/flowCall.js';
import { ensureUserForIdentifier } from './ensureUserForIdentifier.js';
import type { ConnectFlowDeps } from './flowDeps.js';
import { classifyIdentifier } from '../../users/index.js';
import type { ConnectFlow } from '../store/processes.js';

export interface AppendStartInput {
  appendTokenValue: string;
  forcePasskeyAppend: boolean;
  loadedMs: number;
}

export interface StartedAppend {
  attestationOptions: string;
  variant: string;
  isRestrictedBrowser: boolean;
  autoAppend: boolean;
  conditionalAppend: boolean;
}

const VARIANTS = new Set(['default', 'after-hybrid', 'after-error']);

/**
 * The processes an append may run in: its own, and a manage process. web-core 2.x keeps one
 * process for all flows, and the passkey list of @corbado/connect-react 0.2.x adds a passkey
 * ("Add a passkey": append/start with forcePasskeyAppend, then append/finish) with the manage
 * process it listed with, without an append init. The passkey-append connect token is what
 * authorizes the append, in either process.
 */
export const APPEND_FLOWS: readonly ConnectFlow[] = ['append', 'manage'];

export async function startAppend(deps: ConnectFlowDeps, call: FlowCall, input: AppendStartInput): Promise<StartedAppend> {
  const process = await findActiveProcess(deps, call, APPEND_FLOWS);
  const token = await claimConnectToken(deps, { projectId: call.projectId, secret: input.appendTokenValue, type: 'passkey-append', processId: process._id });
  const identifier = classifyIdentifier(token.identifier);
  if (!identifier) {
    throw invalidArgument('invalid_connect_token_identifier', 'the connect token names an identifier that is no email address, phone number or username', [
      { field: 'appendTokenValue', message: "the token's identifier is not a valid email address, phone number (E.164) or username" },
    ]);
  }
  const { user } = await ensureUserForIdentifier(deps, call.projectId, identifier, token.displayName, call);

  const started = await deps.ceremony.startAppend(call, {
    userId: user._id,
    processId: process._id,
    username: identifier.value,
    client: describeClient(process, call),
    forcePasskeyAppend: input.forcePasskeyAppend,
    situation: process.situation || 'default',
  });
  await deps.processes.update(call.projectId, process._id, { userId: user._id, identifier, appendTokenId: token._id, startLoadedMs: input.loadedMs }, deps.now());

  const decision = started.decisionInsights;
  // The client said at init it cannot create a passkey here; only the user's explicit wish overrides that.
  const offer = (started.appendAllow && process.allowed) || input.forcePasskeyAppend;
  return {
    attestationOptions: offer ? started.attestationOptions : '',
    variant: decision && VARIANTS.has(decision.variant) ? decision.variant : 'default',
    isRestrictedBrowser: decision?.isRestrictedBrowser ?? false,
    autoAppend: offer && (decision?.auto ?? false),
    conditionalAppend: offer && (decision?.conditional ?? false),
  };
}
