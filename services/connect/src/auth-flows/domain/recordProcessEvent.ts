/**
 * POST /v2/auth/events: the web SDK reports what happened in the browser that no call shows (a
 * passkey ceremony that failed or that the user cancelled). The event is kept on the process it
 * belongs to (bounded, see MAX_PROCESS_EVENTS), where it can be read with the process; nothing
 * decides on it yet. The gateway checked the event type against the reference's list. A process
 * that does not exist (any more) or has expired is a 404, as for every other step.
 */
import { notFound, permissionDenied, unauthenticated } from '../../../../runtime/errors.js';
import type { FlowCall } from '../../connect-flows/domain/flowDeps.js';
import type { AuthFlowDeps } from './authDeps.js';

export async function recordProcessEvent(deps: Pick<AuthFlowDeps, 'authProcesses' | 'now'>, call: FlowCall, event: { type: string; challenge?: string }): Promise<void> {
  if (!call.processId) throw unauthenticated('process_token_required', 'this endpoint needs a process token');
  if (!call.processId.startsWith('apr-')) throw permissionDenied('wrong_process', 'the process token belongs to a connect flow, not to sign-up or login');
  const now = deps.now();
  const stored = await deps.authProcesses.appendEvent(call.projectId, call.processId, { type: event.type, ...(event.challenge ? { challenge: event.challenge } : {}), at: now }, now);
  if (!stored) throw notFound('process_not_found', 'the process does not exist (any more) or has expired');
}
