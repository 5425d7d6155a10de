/** The caller of a frontend flow RPC, as the gateway established it (shared by the flow handlers). */
import type { HandlerContext } from '@connectrpc/connect';
import { clientAddressKey, projectOf, requestIdKey, tokenProcessFamilyKey, tokenProcessIdKey, userAgentKey } from '../../../../runtime/context.js';
import type { FlowCall } from '../domain/flowCall.js';

export function flowCall(ctx: HandlerContext): FlowCall {
  const processId = ctx.values.get(tokenProcessIdKey);
  const processFamily = ctx.values.get(tokenProcessFamilyKey);
  return {
    projectId: projectOf(ctx),
    requestId: ctx.values.get(requestIdKey),
    clientAddress: ctx.values.get(clientAddressKey),
    userAgent: ctx.values.get(userAgentKey),
    ...(processId ? { processId } : {}),
    ...(processId && processFamily ? { processFamily } : {}),
  };
}
