/**
 * /v2/connect/process/clear: ends a process the client will not use. The web SDK calls it when a
 * parallel init already stored another process; the body carries the superfluous process token.
 */
import { invalidArgument } from '../../../../runtime/errors.js';
import type { ConnectFlowDeps } from './flowDeps.js';
import type { FlowCall } from '../../shared/domain/flowCall.js';
import { readProcessToken } from '../../projects/index.js';

export async function clearProcess(deps: ConnectFlowDeps, call: FlowCall, processToken: string): Promise<void> {
  const processId = await readProcessToken(deps, call.projectId, processToken);
  if (!processId) throw invalidArgument('invalid_process_token', 'processId is not a valid process token of this project', [{ field: 'processId', message: 'must be a process token of this project' }]);
  await deps.processes.clear(call.projectId, processId, deps.now());
}
