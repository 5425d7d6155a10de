/**
 * The process a flow call continues: named by the verified process token, of this project, of the
 * flow the endpoint belongs to, not cleared and not expired. Process tokens expire with their
 * process, so an expired process usually fails at the gateway already; this catches the rest.
 */
import { failedPrecondition, notFound, permissionDenied, unauthenticated } from '../../../../runtime/errors.js';
import type { ConnectFlow, ProcessRecord } from '../store/processes.js';
import type { ConnectFlowDeps } from './flowDeps.js';
import type { FlowCall } from '../../shared/domain/flowCall.js';

/**
 * `flow` is the endpoint's flow, the flows whose processes it serves (the append endpoints serve
 * manage processes too, see startAppend.ts), or 'any' for endpoints every flow uses (events).
 */
export async function findActiveProcess(deps: Pick<ConnectFlowDeps, 'processes' | 'now'>, call: FlowCall, flow: ConnectFlow | readonly ConnectFlow[] | 'any'): Promise<ProcessRecord> {
  if (!call.processId) throw unauthenticated('process_token_required', 'this endpoint needs a process token (from a connect init call)');
  const process = await deps.processes.find(call.projectId, call.processId);
  if (!process) throw notFound('process_not_found', 'the process does not exist (any more)');
  const flows: readonly ConnectFlow[] | 'any' = flow === 'any' || Array.isArray(flow) ? flow : [flow as ConnectFlow];
  if (flows !== 'any' && !flows.includes(process.flow)) {
    throw permissionDenied('wrong_process', `this endpoint belongs to the ${flows.join(' or ')} flow, the process token to the ${process.flow} flow`);
  }
  if (process.status === 'cleared') throw failedPrecondition('process_cleared', 'the process was cleared; start a new one');
  if (process.expiresAt.getTime() <= deps.now().getTime()) throw failedPrecondition('process_expired', 'the process has expired; start a new one');
  return process;
}
