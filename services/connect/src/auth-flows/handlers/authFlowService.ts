/** AuthFlowService RPCs (frontend /v2/auth/*): proto ⇄ domain mapping only. */
import { create, type JsonObject, type MessageInitShape } from '@bufbuild/protobuf';
import type { ServiceImpl } from '@connectrpc/connect';
import {
  AuthFlowService,
  AuthLoginInitResponseSchema,
  BlockSkipResponseSchema,
  IdentifierUpdateResponseSchema,
  EventCreateResponseSchema,
  GetProcessConfigResponseSchema,
  IdentifierVerifyFinishResponseSchema,
  IdentifierVerifyStartResponseSchema,
  IdentifierVerifyStatusResponseSchema,
  PasskeyAppendFinishResponseSchema,
  PasskeyAppendStartResponseSchema,
  PasskeyLoginFinishResponseSchema,
  PasskeyLoginStartResponseSchema,
  PasskeyMediationFinishResponseSchema,
  ProcessCompleteResponseSchema,
  ProcessGetResponseSchema,
  ProcessInitResponseSchema,
  ProcessResetResponseSchema,
  SignupInitResponseSchema,
  type BlockBodySchema,
  type ProcessResponseSchema,
} from '../../../../../gen/passkeyauth/connect/v1/auth_flow_service_pb.js';
import type { AuthFlowDeps } from '../domain/authDeps.js';
import type { Block } from '../domain/blockTypes.js';
import { initLogin } from '../domain/initLogin.js';
import { finishPasskeyAppend } from '../domain/finishPasskeyAppend.js';
import { startPasskeyAppend } from '../domain/startPasskeyAppend.js';
import { finishPasskeyLogin } from '../domain/finishPasskeyLogin.js';
import { startPasskeyLogin } from '../domain/startPasskeyLogin.js';
import { finishPasskeyMediation } from '../domain/finishPasskeyMediation.js';
import { initProcess } from '../domain/initProcess.js';
import { describeProcessState } from '../domain/describeProcessState.js';
import { recordProcessEvent } from '../domain/recordProcessEvent.js';
import { resetProcess } from '../domain/resetProcess.js';
import { initSignup } from '../domain/initSignup.js';
import { finishProcess } from '../domain/finishProcess.js';
import { skipBlock } from '../domain/skipBlock.js';
import { finishIdentifierVerify } from '../domain/finishIdentifierVerify.js';
import { startIdentifierVerify } from '../domain/startIdentifierVerify.js';
import { getVerificationStatus } from '../domain/getVerificationStatus.js';
import { updateProcessIdentifier } from '../domain/updateProcessIdentifier.js';
import type { FlowCall } from '../../connect-flows/domain/flowDeps.js';
import { clientSnapshot } from '../../connect-flows/handlers/clientSnapshot.js';
import { describedClient } from './describedClient.js';
import { flowCall } from '../../connect-flows/handlers/flowCall.js';
import { getProject } from '../../projects/domain/getProject.js';


const blockMessage = (b: Block): MessageInitShape<typeof BlockBodySchema> => ({
  block: b.block,
  authType: b.authType,
  data: b.data as JsonObject,
  alternatives: b.alternatives.map(blockMessage),
  ...(b.error ? { error: b.error } : {}),
  ...(b.continueOnOtherDevice ? { continueOnOtherDevice: b.continueOnOtherDevice } : {}),
});

export function authFlowServiceImpl(deps: AuthFlowDeps): ServiceImpl<typeof AuthFlowService> {
  /** The Block response: the block, the project's common facts, and newProcess when the call started one. */
  async function answer(call: FlowCall, block: Block, newProcess?: { token: string; expiresAt: number }): Promise<MessageInitShape<typeof ProcessResponseSchema>> {
    const project = await getProject(deps, call.projectId);
    return {
      blockBody: blockMessage(block),
      common: { appName: project.appName, frontendApiUrl: project.frontendApiUrl, hideBadge: false, environment: project.environment },
      ...(newProcess ? { newProcess: { token: newProcess.token, expiresAt: BigInt(newProcess.expiresAt) } } : {}),
    };
  }

  return {
    async getProcessConfig(_req, ctx) {
      const project = await getProject(deps, flowCall(ctx).projectId);
      // The process token travels in x-corbado-process-id, which the SDK stores itself: never a server-side process ID.
      return create(GetProcessConfigResponseSchema, { useServerSideProcessId: false, frontendApiUrl: project.frontendApiUrl });
    },
    async processGet(req, ctx) {
      const call = flowCall(ctx);
      return create(ProcessGetResponseSchema, { processResponse: await answer(call, await describeProcessState(deps, call, req.preferredBlock)) });
    },
    async processReset(_req, ctx) {
      const call = flowCall(ctx);
      const r = await resetProcess(deps, call);
      return create(ProcessResetResponseSchema, { processResponse: await answer(call, r.block, r.newProcess) });
    },
    async eventCreate(req, ctx) {
      await recordProcessEvent(deps, flowCall(ctx), { type: req.eventType, ...(req.challenge !== undefined ? { challenge: req.challenge } : {}) });
      return create(EventCreateResponseSchema, {});
    },
    async processInit(req, ctx) {
      const call = flowCall(ctx);
      const r = await initProcess(deps, call, { client: clientSnapshot(req.clientInformation!), clientEnvHandle: req.clientInformation!.clientEnvHandle, preferredBlock: req.preferredBlock });
      return create(ProcessInitResponseSchema, {
        token: r.token,
        expiresAt: BigInt(r.expiresAt),
        newClientEnvHandle: r.newClientEnvHandle,
        processResponse: await answer(call, r.block),
      });
    },
    async signupInit(req, ctx) {
      const call = flowCall(ctx);
      const r = await initSignup(deps, call, { identifiers: req.identifiers.map((i) => ({ type: i.type, identifier: i.identifier })), ...(req.fullName !== undefined ? { fullName: req.fullName } : {}) });
      return create(SignupInitResponseSchema, { processResponse: await answer(call, r.block, r.newProcess) });
    },
    async authLoginInit(req, ctx) {
      const call = flowCall(ctx);
      const r = await initLogin(deps, call, { identifierValue: req.identifierValue, isPhone: req.isPhone ?? false });
      return create(AuthLoginInitResponseSchema, { processResponse: await answer(call, r.block, r.newProcess) });
    },
    async passkeyAppendStart(req, ctx) {
      const call = flowCall(ctx);
      return create(PasskeyAppendStartResponseSchema, { processResponse: await answer(call, await startPasskeyAppend(deps, call, describedClient(req.clientInformation))) });
    },
    async passkeyAppendFinish(req, ctx) {
      const call = flowCall(ctx);
      return create(PasskeyAppendFinishResponseSchema, { processResponse: await answer(call, await finishPasskeyAppend(deps, call, req.signedChallenge)) });
    },
    async passkeyLoginStart(req, ctx) {
      const call = flowCall(ctx);
      return create(PasskeyLoginStartResponseSchema, { processResponse: await answer(call, await startPasskeyLogin(deps, call, describedClient(req.clientInformation))) });
    },
    async passkeyLoginFinish(req, ctx) {
      const call = flowCall(ctx);
      return create(PasskeyLoginFinishResponseSchema, { processResponse: await answer(call, await finishPasskeyLogin(deps, call, req.signedChallenge)) });
    },
    async passkeyMediationFinish(req, ctx) {
      const call = flowCall(ctx);
      return create(PasskeyMediationFinishResponseSchema, { processResponse: await answer(call, await finishPasskeyMediation(deps, call, req.signedChallenge)) });
    },
    async identifierVerifyStart(req, ctx) {
      const call = flowCall(ctx);
      const block = await startIdentifierVerify(deps, call, { identifierType: req.identifierType, verificationType: req.verificationType });
      return create(IdentifierVerifyStartResponseSchema, { processResponse: await answer(call, block) });
    },
    async identifierVerifyFinish(req, ctx) {
      const call = flowCall(ctx);
      const block = await finishIdentifierVerify(deps, call, { code: req.code, identifierType: req.identifierType, verificationType: req.verificationType });
      return create(IdentifierVerifyFinishResponseSchema, { processResponse: await answer(call, block) });
    },
    async identifierVerifyStatus(_req, ctx) {
      const call = flowCall(ctx);
      return create(IdentifierVerifyStatusResponseSchema, { processResponse: await answer(call, await getVerificationStatus(deps, call)) });
    },
    async identifierUpdate(req, ctx) {
      const call = flowCall(ctx);
      const block = await updateProcessIdentifier(deps, call, { identifierType: req.identifierType, value: req.value });
      return create(IdentifierUpdateResponseSchema, { processResponse: await answer(call, block) });
    },
    async blockSkip(_req, ctx) {
      const call = flowCall(ctx);
      return create(BlockSkipResponseSchema, { processResponse: await answer(call, await skipBlock(deps, call)) });
    },
    async processComplete(_req, ctx) {
      const call = flowCall(ctx);
      return create(ProcessCompleteResponseSchema, { processResponse: await answer(call, await finishProcess(deps, call)) });
    },
  };
}
