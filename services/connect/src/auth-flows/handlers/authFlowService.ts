/** AuthFlowService RPCs (frontend /v2/auth/*): proto ⇄ domain mapping only. */
import { create, type MessageInitShape } from '@bufbuild/protobuf';
import type { HandlerContext, ServiceImpl } from '@connectrpc/connect';
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
import type { FlowCall } from '../../shared/domain/flowCall.js';
import { clientSnapshot, flowCall } from '../../shared/handlers/flowRequest.js';
import { blockMessage } from './blockMessage.js';
import { describedClient } from './describedClient.js';
import { getProject, requireSelfServiceFlows, type ProjectRecord } from '../../projects/index.js';

export function authFlowServiceImpl(deps: AuthFlowDeps): ServiceImpl<typeof AuthFlowService> {
  /**
   * The gate every /v2/auth/* call passes first: the caller and its project (read once per call),
   * refused with self_service_disabled before anything is written unless the project serves the
   * self-service flows. Process tokens issued while they were on stop working when they are off.
   */
  async function open(ctx: HandlerContext): Promise<{ call: FlowCall; project: ProjectRecord }> {
    const call = flowCall(ctx);
    const project = await getProject(deps, call.projectId);
    requireSelfServiceFlows(project);
    return { call, project };
  }

  /** The Block response: the block, the project's common facts, and newProcess when the call started one. */
  function answer(project: ProjectRecord, block: Block, newProcess?: { token: string; expiresAt: number }): MessageInitShape<typeof ProcessResponseSchema> {
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
      const { call, project } = await open(ctx);
      return create(ProcessGetResponseSchema, { processResponse: answer(project, await describeProcessState(deps, call, req.preferredBlock)) });
    },
    async processReset(_req, ctx) {
      const { call, project } = await open(ctx);
      const r = await resetProcess(deps, call);
      return create(ProcessResetResponseSchema, { processResponse: answer(project, r.block, r.newProcess) });
    },
    async eventCreate(req, ctx) {
      const { call } = await open(ctx);
      await recordProcessEvent(deps, call, { type: req.eventType, ...(req.challenge !== undefined ? { challenge: req.challenge } : {}) });
      return create(EventCreateResponseSchema, {});
    },
    async processInit(req, ctx) {
      const { call, project } = await open(ctx);
      const r = await initProcess(deps, call, { client: clientSnapshot(req.clientInformation!), clientEnvHandle: req.clientInformation!.clientEnvHandle, preferredBlock: req.preferredBlock });
      return create(ProcessInitResponseSchema, {
        token: r.token,
        expiresAt: BigInt(r.expiresAt),
        newClientEnvHandle: r.newClientEnvHandle,
        processResponse: answer(project, r.block),
      });
    },
    async signupInit(req, ctx) {
      const { call, project } = await open(ctx);
      const r = await initSignup(deps, call, { identifiers: req.identifiers.map((i) => ({ type: i.type, identifier: i.identifier })), ...(req.fullName !== undefined ? { fullName: req.fullName } : {}) });
      return create(SignupInitResponseSchema, { processResponse: answer(project, r.block, r.newProcess) });
    },
    async authLoginInit(req, ctx) {
      const { call, project } = await open(ctx);
      const r = await initLogin(deps, call, { identifierValue: req.identifierValue, isPhone: req.isPhone ?? false });
      return create(AuthLoginInitResponseSchema, { processResponse: answer(project, r.block, r.newProcess) });
    },
    async passkeyAppendStart(req, ctx) {
      const { call, project } = await open(ctx);
      return create(PasskeyAppendStartResponseSchema, { processResponse: answer(project, await startPasskeyAppend(deps, call, describedClient(req.clientInformation))) });
    },
    async passkeyAppendFinish(req, ctx) {
      const { call, project } = await open(ctx);
      return create(PasskeyAppendFinishResponseSchema, { processResponse: answer(project, await finishPasskeyAppend(deps, call, req.signedChallenge)) });
    },
    async passkeyLoginStart(req, ctx) {
      const { call, project } = await open(ctx);
      return create(PasskeyLoginStartResponseSchema, { processResponse: answer(project, await startPasskeyLogin(deps, call, describedClient(req.clientInformation))) });
    },
    async passkeyLoginFinish(req, ctx) {
      const { call, project } = await open(ctx);
      return create(PasskeyLoginFinishResponseSchema, { processResponse: answer(project, await finishPasskeyLogin(deps, call, req.signedChallenge)) });
    },
    async passkeyMediationFinish(req, ctx) {
      const { call, project } = await open(ctx);
      return create(PasskeyMediationFinishResponseSchema, { processResponse: answer(project, await finishPasskeyMediation(deps, call, req.signedChallenge)) });
    },
    async identifierVerifyStart(req, ctx) {
      const { call, project } = await open(ctx);
      const block = await startIdentifierVerify(deps, call, { identifierType: req.identifierType, verificationType: req.verificationType });
      return create(IdentifierVerifyStartResponseSchema, { processResponse: answer(project, block) });
    },
    async identifierVerifyFinish(req, ctx) {
      const { call, project } = await open(ctx);
      const block = await finishIdentifierVerify(deps, call, { code: req.code, identifierType: req.identifierType, verificationType: req.verificationType });
      return create(IdentifierVerifyFinishResponseSchema, { processResponse: answer(project, block) });
    },
    async identifierVerifyStatus(_req, ctx) {
      const { call, project } = await open(ctx);
      return create(IdentifierVerifyStatusResponseSchema, { processResponse: answer(project, await getVerificationStatus(deps, call)) });
    },
    async identifierUpdate(req, ctx) {
      const { call, project } = await open(ctx);
      const block = await updateProcessIdentifier(deps, call, { identifierType: req.identifierType, value: req.value });
      return create(IdentifierUpdateResponseSchema, { processResponse: answer(project, block) });
    },
    async blockSkip(_req, ctx) {
      const { call, project } = await open(ctx);
      return create(BlockSkipResponseSchema, { processResponse: answer(project, await skipBlock(deps, call)) });
    },
    async processComplete(_req, ctx) {
      const { call, project } = await open(ctx);
      return create(ProcessCompleteResponseSchema, { processResponse: answer(project, await finishProcess(deps, call)) });
    },
  };
}
