/** CeremonyService RPCs: proto ⇄ domain mapping only. */
import { create, type JsonObject, type MessageInitShape } from '@bufbuild/protobuf';
import type { ServiceImpl } from '@connectrpc/connect';
import {
  CeremonyService,
  DeleteCredentialResponseSchema,
  DeleteUserCredentialsResponseSchema,
  FinishAppendResponseSchema,
  FinishLoginResponseSchema,
  FinishMediationResponseSchema,
  GetUserHandleResponseSchema,
  ListCredentialsResponseSchema,
  RecordClientEventResponseSchema,
  StartAppendResponseSchema,
  StartLoginResponseSchema,
  StartMediationResponseSchema,
  type CredentialSchema,
  type DetectionInsightsSchema,
} from '../../../../gen/passkeyauth/ceremony/v1/ceremony_service_pb.js';
import type { PasskeyDataSchema } from '../../../../gen/passkeyauth/common/v1/passkey_pb.js';
import { projectOf } from '../../../runtime/context.js';
import type { AaguidCatalog } from '../domain/aaguidDetails.js';
import { deleteCredential } from '../domain/deleteCredential.js';
import { deleteUserCredentials } from '../domain/deleteUserCredentials.js';
import type { CeremonyDomainDeps, PasskeyData } from '../domain/deps.js';
import { finishAppend } from '../domain/finishAppend.js';
import { finishLogin } from '../domain/finishLogin.js';
import { finishMediation } from '../domain/finishMediation.js';
import { getUserHandle } from '../domain/getUserHandle.js';
import type { CrossDeviceStrategy, DetectionInsights } from '../domain/insights/types.js';
import { listCredentials } from '../domain/listCredentials.js';
import { recordClientEvent } from '../domain/recordClientEvent.js';
import { startAppend } from '../domain/startAppend.js';
import { startLogin } from '../domain/startLogin.js';
import { startMediation } from '../domain/startMediation.js';
import type { CredentialRecord } from '../store/credentials.js';
import { toClientContext } from './clientContext.js';
import { passkeyEventAndChallengeRpcs } from './passkeyEventsAndChallenges.js';

export function ceremonyServiceImpl(deps: CeremonyDomainDeps): ServiceImpl<typeof CeremonyService> {
  return {
    async startAppend(req, ctx) {
      // protovalidate has required passkeyIntelFlags.
      const flags = req.passkeyIntelFlags!;
      const started = await startAppend(deps, {
        projectId: projectOf(ctx),
        userId: req.userId,
        processId: req.processId,
        username: req.username,
        client: toClientContext(req.clientInformation),
        flags: {
          forcePasskeyAppend: flags.forcePasskeyAppend,
          askForAutoAppend: flags.askForAutoAppend,
          askForConditionalCreate: flags.askForConditionalCreate,
          askForInAppAppend: flags.askForInAppAppend,
        },
        // The published Node SDK (3.x) sends no situation: the reference's append has only the default one.
        situation: req.situation || 'default',
      });
      const { appendAllow, detection, decision } = started.insights;
      return create(StartAppendResponseSchema, {
        appendAllow,
        attestationOptions: started.attestationOptions,
        detectionInsights: detectionMessage(detection),
        ...referenceInsights(detection, decision.tag),
        decisionInsights: {
          tag: decision.tag,
          isRestrictedBrowser: decision.isRestrictedBrowser,
          variant: decision.variant,
          auto: decision.auto,
          conditional: decision.conditional,
          // The insights put only JSON values into customData.
          customData: decision.customData as JsonObject,
        },
      });
    },
    async finishAppend(req, ctx) {
      const data = await finishAppend(deps, {
        projectId: projectOf(ctx),
        userId: req.userId,
        processId: req.processId,
        trackingId: req.trackingId || undefined,
        attestationResponse: req.attestationResponse,
        client: toClientContext(req.clientInformation),
        sendNotification: req.sendNotification ?? false,
      });
      return create(FinishAppendResponseSchema, { passkeyData: passkeyDataMessage(data) });
    },
    async startLogin(req, ctx) {
      const started = await startLogin(deps, {
        projectId: projectOf(ctx),
        userId: req.userId,
        processId: req.processId,
        client: toClientContext(req.clientInformation),
        // protovalidate has restricted it to the three strategies.
        strategy: req.crossDeviceAuthenticationStrategy as CrossDeviceStrategy,
      });
      const { loginAllow, detection, decision } = started.insights;
      return create(StartLoginResponseSchema, {
        loginAllow,
        assertionOptions: started.assertionOptions,
        detectionInsights: detectionMessage(detection),
        ...referenceInsights(detection, decision.tag),
        isCdaCandidate: decision.isCDACandidate,
        decisionInsights: {
          tag: decision.tag,
          isCdaCandidate: decision.isCDACandidate,
          experiments: decision.experiments,
          preferImmediatelyAvailable: decision.preferImmediatelyAvailable,
        },
      });
    },
    async finishLogin(req, ctx) {
      const done = await finishLogin(deps, {
        projectId: projectOf(ctx),
        userId: req.userId,
        processId: req.processId,
        trackingId: req.trackingId,
        assertionResponse: req.assertionResponse,
        client: toClientContext(req.clientInformation),
        signPasskeyData: req.signPasskeyData ?? false,
      });
      return create(FinishLoginResponseSchema, {
        passkeyData: passkeyDataMessage(done.passkeyData),
        ...(done.signedPasskeyData !== undefined ? { signedPasskeyData: done.signedPasskeyData } : {}),
      });
    },
    async startMediation(req, ctx) {
      const started = await startMediation(deps, {
        projectId: projectOf(ctx),
        ...(req.processId !== undefined ? { processId: req.processId } : {}),
        client: toClientContext(req.clientInformation),
      });
      return create(StartMediationResponseSchema, { loginAllow: started.loginAllow, assertionOptions: started.assertionOptions });
    },
    async finishMediation(req, ctx) {
      const done = await finishMediation(deps, {
        projectId: projectOf(ctx),
        processId: req.processId,
        trackingId: req.trackingId || undefined,
        assertionResponse: req.assertionResponse,
        client: toClientContext(req.clientInformation),
        signPasskeyData: req.signPasskeyData ?? false,
      });
      if ('credentialDeleted' in done) return create(FinishMediationResponseSchema, { error: { type: 'credentialDeleted' } });
      return create(FinishMediationResponseSchema, {
        passkeyData: passkeyDataMessage(done.passkeyData),
        ...(done.signedPasskeyData !== undefined ? { signedPasskeyData: done.signedPasskeyData } : {}),
      });
    },
    async listCredentials(req, ctx) {
      const page = await listCredentials(deps, { projectId: projectOf(ctx), userId: req.userId, sort: req.sort, page: req.page, pageSize: req.pageSize });
      return create(ListCredentialsResponseSchema, {
        credentials: page.credentials.map((c) => credentialMessage(c, deps.aaguids)),
        paging: { page: page.page, totalPages: page.totalPages, totalItems: page.totalItems },
      });
    },
    async deleteCredential(req, ctx) {
      await deleteCredential(deps, projectOf(ctx), req.userId, req.credentialId);
      return create(DeleteCredentialResponseSchema, { result: {} });
    },
    async deleteUserCredentials(req, ctx) {
      const deleted = await deleteUserCredentials(deps, projectOf(ctx), req.userId);
      return create(DeleteUserCredentialsResponseSchema, { deleted });
    },
    async getUserHandle(req, ctx) {
      const userHandle = await getUserHandle(deps, projectOf(ctx), req.userId);
      return create(GetUserHandleResponseSchema, { userHandle });
    },
    ...passkeyEventAndChallengeRpcs(deps),
    async recordClientEvent(req, ctx) {
      const recordedAs = await recordClientEvent(deps, {
        projectId: projectOf(ctx),
        userId: req.userId,
        processId: req.processId,
        eventType: req.eventType,
        message: req.message,
        challenge: req.challenge,
        // clientInformation is optional here: events may come without one.
        ...(req.clientInformation ? { client: toClientContext(req.clientInformation) } : {}),
      });
      return create(RecordClientEventResponseSchema, { recordedAs });
    },
  };
}

/**
 * The reference's flat fields of B2 and B4 (detectionTags, decisionTag, credentialCount), which the
 * published Node SDK's models read, answered beside the interface's detectionInsights and
 * decisionInsights (the same facts, so a client reading either agrees).
 */
function referenceInsights(d: DetectionInsights, decisionTag: string) {
  return { detectionTags: d.tags.map((t) => ({ category: t.category, name: t.name })), decisionTag, credentialCount: d.credentialIds.length };
}

function detectionMessage(d: DetectionInsights): MessageInitShape<typeof DetectionInsightsSchema> {
  return {
    tags: d.tags.map((t) => ({ category: t.category, name: t.name })),
    credentialIds: d.credentialIds,
    clientEnvIds: d.clientEnvIds,
    passwordManagerIds: d.passwordManagerIds,
    historyData: { ...d.historyData },
  };
}

function passkeyDataMessage(d: PasskeyData): MessageInitShape<typeof PasskeyDataSchema> {
  return { id: d.id, userId: d.userId, username: d.username, challengeId: d.challengeId, ceremonyType: d.ceremonyType, aaguidDetails: { ...d.aaguidDetails } };
}

/** The reference's timestamp format: yyyy-MM-ddTHH:mm:ss in UTC. */
function timestamp(d: Date): string {
  return d.toISOString().slice(0, 19);
}

function credentialMessage(c: CredentialRecord, aaguids: AaguidCatalog): MessageInitShape<typeof CredentialSchema> {
  return {
    id: c._id,
    credentialId: c.credentialId,
    attestationType: c.attestationFormat,
    transport: c.transports,
    backupEligible: c.backupEligible,
    backupState: c.backupState,
    authenticatorAaguid: c.aaguid,
    sourceOs: c.sourceOS,
    sourceBrowser: c.sourceBrowser,
    lastUsed: timestamp(c.lastUsedAt),
    created: timestamp(c.createdAt),
    status: c.status,
    aaguidDetails: { ...aaguids.details(c.aaguid) },
  };
}
