/** The Block of the domain as the BlockBody message (the gateway renders it as the interface's blockBody). */
import type { JsonObject, MessageInitShape } from '@bufbuild/protobuf';
import type { BlockBodySchema } from '../../../../../gen/passkeyauth/connect/v1/auth_flow_service_pb.js';
import type { Block } from '../domain/blockTypes.js';

export function blockMessage(b: Block): MessageInitShape<typeof BlockBodySchema> {
  return {
    block: b.block,
    authType: b.authType,
    data: b.data as JsonObject,
    alternatives: b.alternatives.map(blockMessage),
    ...(b.error ? { error: b.error } : {}),
    ...(b.continueOnOtherDevice ? { continueOnOtherDevice: b.continueOnOtherDevice } : {}),
  };
}
