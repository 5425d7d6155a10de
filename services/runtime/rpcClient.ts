/** Connect clients for calling other services (HTTP/1.1, binary protocol), each call carrying the caller's token. */
import type { DescService } from '@bufbuild/protobuf';
import { createClient, type Client, type Transport } from '@connectrpc/connect';
import { validateReadWriteMaxBytes } from '@connectrpc/connect/protocol';
import { createTransport } from '@connectrpc/connect/protocol-connect';
import { callerAuthInterceptor, type CallerTokens } from './internalAuth.js';
import { internalServiceOf } from './internalCallPolicy.js';
import { requestInOneWrite } from './requestInOneWrite.js';

/**
 * The transport to one service; `callerToken` (internalTokenSource, for that service) proves who calls. Messages
 * are not compressed: they are small, travel inside the cluster, and zlib cost CPU on both ends
 * of every answer over 1 KiB.
 */
export function serviceTransport(baseUrl: string, callerToken: () => Promise<string>): Transport {
  return createTransport({
    baseUrl,
    httpClient: requestInOneWrite(),
    useBinaryFormat: true,
    interceptors: [callerAuthInterceptor(callerToken)],
    acceptCompression: [],
    sendCompression: null,
    ...validateReadWriteMaxBytes(undefined, undefined, undefined),
  });
}

/** A client of `service`, its calls carrying the caller's token for the process that serves it. */
export function serviceClient<S extends DescService>(service: S, baseUrl: string, callerTokens: CallerTokens): Client<S> {
  const target = internalServiceOf(service);
  return createClient(service, serviceTransport(baseUrl, () => callerTokens(target)));
}
