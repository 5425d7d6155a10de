/**
 * The Block of the domain as the BlockBody message: its data as the oneof member of its block type.
 * The gateway writes the member back as `data` (json_oneof), so the JSON is what the domain built;
 * the fields carry over one to one, except the int64 retryNotBefore and the one whose generated
 * name differs from the JSON name (conditionalUIChallenge).
 */
import type { MessageInitShape } from '@bufbuild/protobuf';
import type { BlockBodySchema } from '../../../../../gen/passkeyauth/connect/v1/auth_flow_service_pb.js';
import type { Block, BlockData } from '../domain/blockTypes.js';

type BlockDataMessage = MessageInitShape<typeof BlockBodySchema>['data'];

function dataMessage(d: BlockData): BlockDataMessage {
  switch (d.blockType) {
    case 'signup-init':
      return { case: 'signupInit', value: d };
    case 'login-init': {
      const { conditionalUIChallenge, ...rest } = d;
      return { case: 'loginInit', value: { ...rest, ...(conditionalUIChallenge !== undefined ? { conditionalUiChallenge: conditionalUIChallenge } : {}) } };
    }
    case 'passkey-append':
      return { case: 'passkeyAppend', value: d };
    case 'passkey-verify':
      return { case: 'passkeyVerify', value: d };
    case 'email-verify':
    case 'phone-verify': {
      const { retryNotBefore, ...rest } = d;
      const value = { ...rest, ...(retryNotBefore !== undefined ? { retryNotBefore: BigInt(retryNotBefore) } : {}) };
      return d.blockType === 'email-verify' ? { case: 'emailVerify', value } : { case: 'phoneVerify', value };
    }
    case 'passkey-appended':
      return { case: 'passkeyAppended', value: d };
    case 'completed':
      return { case: 'completed', value: d };
  }
}

export function blockMessage(b: Block): MessageInitShape<typeof BlockBodySchema> {
  return {
    block: b.block,
    authType: b.authType,
    data: dataMessage(b.data),
    alternatives: b.alternatives.map(blockMessage),
    ...(b.error ? { error: b.error } : {}),
    ...(b.continueOnOtherDevice ? { continueOnOtherDevice: b.continueOnOtherDevice } : {}),
  };
}
