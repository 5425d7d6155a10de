/** One Connect transport per backing service, chosen by the RPC's proto package (passkeyauth.<service>.v1). */
import type { DescService } from '@bufbuild/protobuf';
import type { Transport } from '@connectrpc/connect';
import type { CallerTokens } from '../../services/runtime/internalAuth.js';
import { internalServiceOf, type InternalService } from '../../services/runtime/internalCallPolicy.js';
import { serviceTransport } from '../../services/runtime/rpcClient.js';

export type ServiceName = InternalService;

/** Each transport carries the gateway's token for that service (a token is valid for one service only). */
export function createUpstreams(urls: Record<ServiceName, string>, callerTokens: CallerTokens): Record<ServiceName, Transport> {
  const make = (target: ServiceName) => serviceTransport(urls[target], () => callerTokens(target));
  return { ceremony: make('ceremony'), challenge: make('challenge'), connect: make('connect'), events: make('events') };
}

export function serviceNameOf(service: DescService): ServiceName {
  return internalServiceOf(service);
}
