/** ConnectFlowService RPCs (frontend /v2/connect/*): proto ⇄ domain mapping only. */
import { create, type MessageInitShape } from '@bufbuild/protobuf';
import type { ServiceImpl } from '@connectrpc/connect';
import {
  AppendFinishResponseSchema,
  AppendInitResponseSchema,
  AppendStartResponseSchema,
  ClearProcessResponseSchema,
  ConnectFlowService,
  CreateEventResponseSchema,
  LoginFinishResponseSchema,
  LoginInitResponseSchema,
  LoginStartResponseSchema,
  ManageDeleteResponseSchema,
  ManageInitResponseSchema,
  ManageListResponseSchema,
  type FallbackOperationErrorSchema,
  type PasskeyOperationSchema,
} from '../../../../../gen/passkeyauth/connect/v1/connect_flow_service_pb.js';
import { finishAppend } from '../domain/finishAppend.js';
import { startAppend } from '../domain/startAppend.js';
import { clearProcess } from '../domain/clearProcess.js';
import type { ConnectFlowDeps } from '../domain/flowDeps.js';
import { clientSnapshot, flowCall } from '../../shared/handlers/flowRequest.js';
import { initFlow } from '../domain/initFlow.js';
import { finishLogin } from '../domain/finishLogin.js';
import { startLogin, type Fallback } from '../domain/startLogin.js';
import { deleteManagedPasskey } from '../domain/deleteManagedPasskey.js';
import { listManagedPasskeys } from '../domain/listManagedPasskeys.js';
import type { PasskeyOperationResult } from '../domain/describePasskeyOperation.js';
import { recordFlowEvent } from '../domain/recordFlowEvent.js';
import { connectPasskeyMessage } from '../../shared/handlers/connectPasskeyMessage.js';


const fallbackMessage = (f: Fallback): MessageInitShape<typeof FallbackOperationErrorSchema> => ({
  initFallback: f.initFallback,
  ...(f.identifier !== undefined ? { identifier: f.identifier } : {}),
  ...(f.error ? { error: f.error } : {}),
});

const operationMessage = (op: PasskeyOperationResult): MessageInitShape<typeof PasskeyOperationSchema> => ({ ...op });

export function connectFlowServiceImpl(deps: ConnectFlowDeps): ServiceImpl<typeof ConnectFlowService> {
  return {
    async loginInit(req, ctx) {
      const r = await initFlow(deps, flowCall(ctx), {
        flow: 'login',
        client: clientSnapshot(req.clientInformation!),
        clientEnvHandle: req.clientInformation!.clientEnvHandle,
        flags: req.flags ?? {},
        invitationToken: req.invitationToken,
      });
      return create(LoginInitResponseSchema, {
        token: r.processToken,
        expiresAt: BigInt(r.expiresAt),
        frontendApiUrl: r.frontendApiUrl,
        loginAllowed: r.allowed,
        flags: r.flags,
        newClientEnvHandle: r.newClientEnvHandle,
        newClientState: r.newClientState,
        conditionalUiChallenge: r.conditionalUIChallenge,
      });
    },
    async appendInit(req, ctx) {
      const r = await initFlow(deps, flowCall(ctx), {
        flow: 'append',
        client: clientSnapshot(req.clientInformation!),
        clientEnvHandle: req.clientInformation!.clientEnvHandle,
        flags: req.flags ?? {},
        invitationToken: req.invitationToken,
        situation: req.situation,
      });
      return create(AppendInitResponseSchema, {
        processId: r.processToken,
        expiresAt: BigInt(r.expiresAt),
        frontendApiUrl: r.frontendApiUrl,
        appendAllowed: r.allowed,
        flags: r.flags,
        newClientEnvHandle: r.newClientEnvHandle,
        newClientState: r.newClientState,
      });
    },
    async manageInit(req, ctx) {
      const r = await initFlow(deps, flowCall(ctx), {
        flow: 'manage',
        client: clientSnapshot(req.clientInformation!),
        clientEnvHandle: req.clientInformation!.clientEnvHandle,
        flags: req.flags ?? {},
        invitationToken: req.invitationToken,
      });
      return create(ManageInitResponseSchema, {
        processId: r.processToken,
        expiresAt: BigInt(r.expiresAt),
        frontendApiUrl: r.frontendApiUrl,
        manageAllowed: r.allowed,
        flags: r.flags,
        newClientEnvHandle: r.newClientEnvHandle,
      });
    },
    async loginStart(req, ctx) {
      const r = await startLogin(deps, flowCall(ctx), {
        identifier: req.identifier,
        source: req.source,
        loadedMs: Number(req.loadedMs ?? 0n),
        loginConnectToken: req.loginConnectToken,
        identifierHintAvailable: req.identifierHintAvailable,
        ...(req.oneTapMeta ? { oneTapMeta: { ts: Number(req.oneTapMeta.ts), source: req.oneTapMeta.source } } : {}),
      });
      return create(LoginStartResponseSchema, {
        assertionOptions: r.assertionOptions,
        isCda: r.isCDA,
        fallbackOperationError: fallbackMessage(r.fallback),
        preferImmediatelyAvailable: r.preferImmediatelyAvailable,
      });
    },
    async loginFinish(req, ctx) {
      const r = await finishLogin(deps, flowCall(ctx), {
        isConditionalUI: req.isConditionalUi ?? false,
        assertionResponse: req.assertionResponse,
        ...(req.loadedMs !== undefined ? { loadedMs: Number(req.loadedMs) } : {}),
      });
      return create(LoginFinishResponseSchema, {
        session: r.session,
        signedPasskeyData: r.signedPasskeyData,
        ...(r.operation ? { passkeyOperation: operationMessage(r.operation) } : {}),
      });
    },
    async appendStart(req, ctx) {
      const r = await startAppend(deps, flowCall(ctx), { appendTokenValue: req.appendTokenValue, forcePasskeyAppend: req.forcePasskeyAppend ?? false, loadedMs: Number(req.loadedMs ?? 0n) });
      return create(AppendStartResponseSchema, { ...r });
    },
    async appendFinish(req, ctx) {
      const op = await finishAppend(deps, flowCall(ctx), {
        attestationResponse: req.attestationResponse,
        completionType: req.completionType,
        ...(req.customData ? { customData: req.customData } : {}),
      });
      return create(AppendFinishResponseSchema, { passkeyOperation: operationMessage(op) });
    },
    async manageList(req, ctx) {
      const r = await listManagedPasskeys(deps, flowCall(ctx), req.connectToken);
      return create(ManageListResponseSchema, {
        passkeys: r.passkeys.map(connectPasskeyMessage),
        rpId: r.rpId,
        userId: r.userHandle,
      });
    },
    async manageDelete(req, ctx) {
      await deleteManagedPasskey(deps, flowCall(ctx), { connectToken: req.connectToken, credentialId: req.credentialId });
      return create(ManageDeleteResponseSchema, { credentialId: req.credentialId });
    },
    async createEvent(req, ctx) {
      await recordFlowEvent(deps, flowCall(ctx), { eventType: req.eventType, message: req.message, challenge: req.challenge });
      return create(CreateEventResponseSchema, {});
    },
    async clearProcess(req, ctx) {
      await clearProcess(deps, flowCall(ctx), req.processId);
      return create(ClearProcessResponseSchema, { processId: req.processId });
    },
  };
}
