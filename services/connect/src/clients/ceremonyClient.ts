/**
 * The ceremony service behind connect's PasskeyCeremonies port (shared/domain/passkeyCeremonies.ts):
 * builds the ceremony's messages (clientInformation from the domain's CeremonyClient), carries the
 * call's identity as headers, reads the answers into the domain's plain types and turns errors
 * into DomainErrors (relayError in serviceCalls.ts).
 */
import { Code, ConnectError, type Client } from '@connectrpc/connect';
import type { CeremonyService, Credential } from '../../../../gen/passkeyauth/ceremony/v1/ceremony_service_pb.js';
import { ErrorInfoSchema } from '../../../../gen/passkeyauth/common/v1/errors_pb.js';
import type { PasskeyData as PasskeyDataMessage } from '../../../../gen/passkeyauth/common/v1/passkey_pb.js';
import type { FinishedLoginCeremony, Passkey, PasskeyCeremonies, PasskeyData } from '../shared/domain/passkeyCeremonies.js';
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
        try {
          const r = await ceremony.finishLogin(
            {
              userId: input.userId,
              assertionResponse: input.assertionResponse,
              processId: input.processId,
              trackingId: input.trackingId,
              clientInformation: backendClientInformation(input.client),
              signPasskeyData: false,
            },
            { headers: serviceHeaders(call) },
          );
          return verifiedLoginOf(r.passkeyData);
        } catch (err) {
          if (isPasskeyGone(err)) return { passkeyDeleted: true };
          throw err;
        }
      }),

    startMediation: (call, input) =>
      relayErrorsOf(async () => {
        const r = await ceremony.startMediation({ clientInformation: backendClientInformation(input.client), processId: input.processId }, { headers: serviceHeaders(call) });
        return { loginAllow: r.loginAllow, assertionOptions: r.assertionOptions };
      }),

    finishMediation: (call, input) =>
      relayErrorsOf(async () => {
        try {
          const r = await ceremony.finishMediation(
            {
              assertionResponse: input.assertionResponse,
              clientInformation: backendClientInformation(input.client),
              processId: input.processId,
              trackingId: input.trackingId,
              signPasskeyData: false,
            },
            { headers: serviceHeaders(call) },
          );
          if (r.error?.type === 'credentialDeleted') return { passkeyDeleted: true };
          return verifiedLoginOf(r.passkeyData);
        } catch (err) {
          if (isPasskeyGone(err)) return { passkeyDeleted: true };
          throw err;
        }
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

/**
 * The ceremony's two ways of saying the passkey is gone, besides B7's error.type: 404
 * credential_not_found (B5: not a passkey of the user (any more); B5 and B7: deleted during the
 * login). Both mean "this passkey no longer exists" to the flow.
 */
function isPasskeyGone(err: unknown): boolean {
  return err instanceof ConnectError && err.code === Code.NotFound && err.findDetails(ErrorInfoSchema)[0]?.type === 'credential_not_found';
}

function verifiedLoginOf(m: PasskeyDataMessage | undefined): FinishedLoginCeremony {
  // A verified login always names its passkey; an answer without one is a broken ceremony service.
  if (!m) throw new Error('the ceremony service answered a login without passkeyData');
  return { passkeyDeleted: false, passkeyData: passkeyDataOf(m) };
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
