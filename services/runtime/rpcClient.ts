/** Connect clients for calling other services (HTTP/1.1, binary protocol), each call carrying the caller's token. */
import type { DescService } from '@bufbuild/protobuf';
import { createClient, type Client, type Transport } from '@connectrpc/connect';
import { createConnectTransport } from '@connectrpc/connect-node';
import { callerAuthInterceptor } from './internalAuth.js';

/** The transport to one service; `callerToken` (internalTokenSource) proves who calls. */
export function serviceTransport(baseUrl: string, callerToken: () => Promise<string>): Transport {
  return createConnectTransport({ baseUrl, httpVersion: '1.1', useBinaryFormat: true, interceptors: [callerAuthInterceptor(callerToken)] });
}

export function serviceClient<S extends DescService>(service: S, baseUrl: string, callerToken: () => Promise<string>): Client<S> {
  return createClient(service, serviceTransport(baseUrl, callerToken));
}
