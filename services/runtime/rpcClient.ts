/** Connect clients for calling other services (HTTP/1.1 or h2c, JSON-free binary protocol). */
import type { DescService } from '@bufbuild/protobuf';
import { createClient, type Client } from '@connectrpc/connect';
import { createConnectTransport } from '@connectrpc/connect-node';

export function serviceClient<S extends DescService>(service: S, baseUrl: string): Client<S> {
  return createClient(service, createConnectTransport({ baseUrl, httpVersion: '1.1', useBinaryFormat: true }));
}
