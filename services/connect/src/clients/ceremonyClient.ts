/**
 * The ceremony service behind connect's PasskeyCeremonies port (shared/domain/passkeyCeremonies.ts):
 * builds the ceremony's messages (clientInformation from the domain's CeremonyClient), carries the
 * call's identity as headers, reads the answers into the domain's plain types and turns errors
 * into DomainErrors (relayError in serviceCalls.ts).
 */
import type { Client } from '@connectrpc/connect';
import type { CeremonyService, Credential } from '../../../../gen/passkeyauth/ceremony/v1/ceremony_service_pb.js';
import type { PasskeyData as PasskeyDataMessage } from '../../../../gen/passkeyauth/common/v1/passkey_pb.js';
import type { Passkey, PasskeyCeremonies, PasskeyData } from '../shared/domain/passkeyCeremonies.js';
import { backendClientInformation } from './backendClientInformation.js';
import { relayErrorsOf, serviceHeaders } from './serviceCalls.js';

export function rpcPasskeyCeremonies(ceremony: Client<typeof CeremonyService>): PasskeyCeremonies {
  return {
    startAppend: (call, input) =>
      relayErrorsOf(async () => {
        const r = await ceremony.startAppend(
          {
            userId: input.userId,
            processId: input.processId,
            username: input.username,
            clientInformation: backendClientInformation(input.client),
            passkeyIntelFlags: { forcePasskeyAppend: input.forcePasskeyAppend },
            situation: input.situation,
          },
          { headers: serviceHeaders(call) },
        );
        const d = r.decisionInsights;
        return {
          appendAllow: r.appendAllow,
          attestationOptions: r.attestationOptions,
          detectionTags: (r.detectionInsights?.tags ?? []).map((t) => ({ category: t.category, name: t.name })),
          ...(d ? { decisionInsights: { tag: d.tag, isRestrictedBrowser: d.isRestrictedBrowser, variant: d.variant, auto: d.auto, conditional: d.conditional } } : {}),
        };
      }),

    finishAppend: (call, input) =>
      relayErrorsOf(async () => {
        const r = await ceremony.finishAppend(
          {
            userId: input.userId,
            processId: input.processId,
            attestationResponse: input.attestationResponse,
            trackingId: input.trackingId,
            clientInformation: backendClientInformation(input.client),
          },
          { headers: serviceHeaders(call) },
        );
        return r.passkeyData ? { passkeyData: passkeyDataOf(r.passkeyData) } : {};
      }),

    startLogin: (call, input) =>
      relayErrorsOf(async () => {
        const r = await ceremony.startLogin(
          {
            userId: input.userId,
            clientInformation: backendClientInformation(input.client),
            crossDeviceAuthenticationStrategy: input.crossDeviceAuthenticationStrategy,
            processId: input.processId,
          },
          { headers: serviceHeaders(call) },
        );
        const d = r.decisionInsights;
        return {
          loginAllow: r.loginAllow,
          assertionOptions: r.assertionOptions,
          ...(d ? { decisionInsights: { tag: d.tag, isCdaCandidate: d.isCdaCandidate, preferImmediatelyAvailable: d.preferImmediatelyAvailable } } : {}),
        };
      }),

    finishLogin: (call, input) =>
      relayErrorsOf(async () => {
        const r = await ceremony.finishLogin(
          {
            userId: input.userId,
            assertionResponse: input.assertionResponse,
            processId: input.processId,
            trackingId: input.trackingId,
            clientInformation: backendClientInformation(input.client),
            ...(input.signPasskeyData !== undefined ? { signPasskeyData: input.signPasskeyData } : {}),
          },
          { headers: serviceHeaders(call) },
        );
        return {
          ...(r.passkeyData ? { passkeyData: passkeyDataOf(r.passkeyData) } : {}),
          ...(r.signedPasskeyData !== undefined ? { signedPasskeyData: r.signedPasskeyData } : {}),
        };
      }),

    startMediation: (call, input) =>
      relayErrorsOf(async () => {
        const r = await ceremony.startMediation({ clientInformation: backendClientInformation(input.client), processId: input.processId }, { headers: serviceHeaders(call) });
        return { loginAllow: r.loginAllow, assertionOptions: r.assertionOptions };
      }),

    finishMediation: (call, input) =>
      relayErrorsOf(async () => {
        const r = await ceremony.finishMediation(
          {
            assertionResponse: input.assertionResponse,
            clientInformation: backendClientInformation(input.client),
            processId: input.processId,
            trackingId: input.trackingId,
            ...(input.signPasskeyData !== undefined ? { signPasskeyData: input.signPasskeyData } : {}),
          },
          { headers: serviceHeaders(call) },
        );
        return {
          ...(r.passkeyData ? { passkeyData: passkeyDataOf(r.passkeyData) } : {}),
          ...(r.signedPasskeyData !== undefined ? { signedPasskeyData: r.signedPasskeyData } : {}),
          ...(r.error ? { error: { type: r.error.type } } : {}),
        };
      }),

    recordClientEvent: (call, input) =>
      relayErrorsOf(async () => {
        await ceremony.recordClientEvent(
          {
            userId: input.userId,
            processId: input.processId,
            eventType: input.eventType,
            message: input.message,
            challenge: input.challenge,
            clientInformation: backendClientInformation(input.client),
          },
          { headers: serviceHeaders(call) },
        );
      }),

    listPasskeys: (call, input) =>
      relayErrorsOf(async () => {
        const r = await ceremony.listCredentials({ userId: input.userId, page: input.page, pageSize: input.pageSize }, { headers: serviceHeaders(call) });
        return { passkeys: r.credentials.map(passkeyOf), totalPages: r.paging?.totalPages ?? 1 };
      }),

    getUserHandle: (call, userId) =>
      relayErrorsOf(async () => {
        const r = await ceremony.getUserHandle({ userId }, { headers: serviceHeaders(call) });
        return r.userHandle;
      }),

    deletePasskey: (call, input) =>
      relayErrorsOf(async () => {
        await ceremony.deleteCredential({ userId: input.userId, credentialId: input.passkeyId }, { headers: serviceHeaders(call) });
      }),
  };
}

function passkeyDataOf(m: PasskeyDataMessage): PasskeyData {
  const a = m.aaguidDetails;
  return {
    id: m.id,
    userId: m.userId,
    username: m.username,
    challengeId: m.challengeId,
    ceremonyType: m.ceremonyType,
    ...(a ? { aaguidDetails: { aaguid: a.aaguid, name: a.name, iconLight: a.iconLight, iconDark: a.iconDark } } : {}),
  };
}

function passkeyOf(c: Credential): Passkey {
  const a = c.aaguidDetails;
  return {
    id: c.id,
    credentialId: c.credentialId,
    attestationType: c.attestationType,
    transport: [...c.transport],
    backupEligible: c.backupEligible,
    backupState: c.backupState,
    authenticatorAaguid: c.authenticatorAaguid,
    sourceOs: c.sourceOs,
    sourceBrowser: c.sourceBrowser,
    lastUsed: c.lastUsed,
    created: c.created,
    status: c.status,
    ...(a ? { aaguidDetails: { aaguid: a.aaguid, name: a.name, iconLight: a.iconLight, iconDark: a.iconDark } } : {}),
  };
}
