/**
 * POST /v2/auth/events: the web SDK reports what happened in the browser that no call shows (a
 * passkey ceremony that failed or that the user cancelled). The event is kept on the process it
 * belongs to, where nothing decides on it yet and no step reads it (the process reads leave events
 * out), and it goes with the process (the process's TTL is the events' retention).
 *
 * What is kept is bounded: the newest MAX_PROCESS_EVENTS events per process, each with its type and
 * only a SHA-256 digest and the length of the free-form `challenge` (the ceremony options, up to
 * 65,536 characters, which an anonymous caller chooses): enough to match an event to the options
 * that were issued, never the caller's bytes. Worst case 3,243 bytes per process instead of 1.3 MB
 * (see MAX_PROCESS_EVENTS). The gateway checked the event type against the reference's list. A
 * process that does not exist (any more) or has expired is a 404, as for every other step.
 */
import { createHash } from 'node:crypto';
import { notFound, permissionDenied, unauthenticated } from '../../../../runtime/errors.js';
import { type FlowCall, processFamilyOf } from '../../shared/domain/flowCall.js';
import type { ProcessEvent } from '../store/authProcesses.js';
import type { AuthFlowDeps } from './authDeps.js';

/** The event as stored: the challenge replaced by its digest and length. */
export function summarizeProcessEvent(event: { type: string; challenge?: string }, at: Date): ProcessEvent {
  const challenge = event.challenge
    ? { challengeSha256: createHash('sha256').update(event.challenge, 'utf8').digest('base64url'), challengeLength: event.challenge.length }
    : {};
  return { type: event.type, ...challenge, at };
}

export async function recordProcessEvent(deps: Pick<AuthFlowDeps, 'authProcesses' | 'now'>, call: FlowCall, event: { type: string; challenge?: string }): Promise<void> {
  if (!call.processId) throw unauthenticated('process_token_required', 'this endpoint needs a process token');
  if (processFamilyOf(call) !== 'auth') throw permissionDenied('wrong_process', 'the process token belongs to a connect flow, not to sign-up or login');
  const now = deps.now();
  const stored = await deps.authProcesses.appendEvent(call.projectId, call.processId, summarizeProcessEvent(event, now), now);
  if (!stored) throw notFound('process_not_found', 'the process does not exist (any more) or has expired');
}
