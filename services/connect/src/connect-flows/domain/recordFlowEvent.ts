/**
 * /v2/connect/events: an event the page observed (the user aborted the dialog, an error, a switch
 * away from one-tap…). The ceremony service records it with the process's user, where it feeds
 * the insights' history and cooldowns (an aborted append is not offered again right away).
 */
import { findActiveProcess } from './findActiveProcess.js';
import { describeClient, type FlowCall } from '../../shared/domain/flowCall.js';
import type { ConnectFlowDeps } from './flowDeps.js';

export interface FlowEventInput {
  eventType: string;
  message: string;
  challenge: string;
}

export async function recordFlowEvent(deps: ConnectFlowDeps, call: FlowCall, input: FlowEventInput): Promise<void> {
  const process = await findActiveProcess(deps, call, 'any');
  await deps.ceremony.recordClientEvent(call, {
    userId: process.userId ?? '',
    processId: process._id,
    eventType: input.eventType,
    message: input.message,
    challenge: input.challenge,
    client: describeClient(process, call),
  });
}
