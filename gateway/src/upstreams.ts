/** One Connect transport per backing service, chosen by the RPC's proto package (passkeyauth.<service>.v1). */
import type { DescService } from '@bufbuild/protobuf';
import type { Transport } from '@connectrpc/connect';
import { serviceTransport } from '../../services/runtime/rpcClient.js';

export type ServiceName = 'ceremony' | 'challenge' | 'connect';

export function createUpstreams(urls: Record<ServiceName, string>, callerToken: () => Promise<string>): Record<ServiceName, Transport> {
  const make = (baseUrl: string) => serviceTransport(baseUrl, callerToken);
  return { ceremony: make(urls.ceremony), challenge: make(urls.challenge), connect: make(urls.connect) };
}

export function serviceNameOf(service: DescService): ServiceName {
  const name = service.file.proto.package.split('.')[1];
  if (name !== 'ceremony' && name !== 'challenge' && name !== 'connect') throw new Error(`${service.typeName} belongs to no backing service`);
  return name;
}
