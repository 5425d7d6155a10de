/**
 * The adapters of connect's ports (src/clients/): the ceremony's messages they build, the headers
 * they carry, and the errors they turn into DomainErrors, against a fake ceremony service in memory;
 * and the error interceptor answering a relayed error exactly as the other service gave it.
 */
import { Code, ConnectError, createClient, createRouterTransport } from '@connectrpc/connect';
import { describe, expect, it } from 'vitest';
import { CeremonyService, type FinishLoginRequest, type FinishMediationRequest, type StartAppendRequest } from '../../../gen/passkeyauth/ceremony/v1/ceremony_service_pb.js';
import { ErrorInfoSchema } from '../../../gen/passkeyauth/common/v1/errors_pb.js';
import { HEADERS } from '../../runtime/context.js';
import { invalidArgument, notFound, RelayedError, resourceExhausted } from '../../runtime/errors.js';
import { errorInterceptor, toConnectError } from '../../runtime/interceptors.js';
import { rpcPasskeyCeremonies } from '../src/clients/ceremonyClient.js';
import { relayError } from '../src/clients/serviceCalls.js';
import type { CeremonyClient, ServiceCall } from '../src/shared/domain/passkeyCeremonies.js';
import { CAPABLE_BROWSER } from '../../../test/kit/fakeCeremonyAndChallenge.js';

const CALL: ServiceCall = { projectId: 'pro-1', requestId: 'req-1', clientAddress: '203.0.113.1' };
const CLIENT: CeremonyClient = { snapshot: { ...CAPABLE_BROWSER, visitorId: 'v'.repeat(300), privateMode: true }, clientEnvHandle: 'env-1', remoteAddress: '203.0.113.1', userAgent: 'UA' };

function ceremonyWith(startAppend: (req: StartAppendRequest, headers: Headers) => object | Promise<object>) {
  return rpcPasskeyCeremonies(
    createClient(
      CeremonyService,
      createRouterTransport((router) => router.service(CeremonyService, { startAppend: (req, ctx) => startAppend(req, ctx.requestHeader) })),
    ),
  );
}

describe('ceremony adapter', () => {
  it('builds the ceremony request (clientInformation included) and carries the call as headers', async () => {
    let seen: { req: StartAppendRequest; headers: Headers } | undefined;
    const ceremony = ceremonyWith((req, headers) => {
      seen = { req, headers };
      return { appendAllow: true, attestationOptions: '{}', decisionInsights: { variant: 'after-error', auto: true }, detectionInsights: { tags: [{ category: 'passkey', name: 'env-has-passkey' }] } };
    });
    const r = await ceremony.startAppend(CALL, { userId: 'usr-1', processId: 'cpr-1', username: 'ada@example.com', client: CLIENT, forcePasskeyAppend: true, situation: 'default' });
    expect(r).toEqual({
      appendAllow: true,
      attestationOptions: '{}',
      detectionTags: [{ category: 'passkey', name: 'env-has-passkey' }],
      decisionInsights: { tag: '', isRestrictedBrowser: false, variant: 'after-error', auto: true, conditional: false },
    });
    expect(seen!.req).toMatchObject({ userId: 'usr-1', processId: 'cpr-1', username: 'ada@example.com', situation: 'default', passkeyIntelFlags: { forcePasskeyAppend: true } });
    expect(seen!.req.clientInformation).toMatchObject({
      remoteAddress: '203.0.113.1',
      userAgent: 'UA',
      userVerifyingPlatformAuthenticatorAvailable: true,
      conditionalMediationAvailable: true,
      clientEnvHandle: 'env-1',
      javascriptFingerprint: 'v'.repeat(256),
      privateMode: true,
    });
    expect(seen!.headers.get(HEADERS.requestId)).toBe('req-1');
    expect(seen!.headers.get(HEADERS.projectId)).toBe('pro-1');
    expect(seen!.headers.get(HEADERS.clientAddress)).toBe('203.0.113.1');
  });

  it('says "unknown" for an address and browser the gateway did not see, and sends no address header', async () => {
    let seen: { req: StartAppendRequest; headers: Headers } | undefined;
    const ceremony = ceremonyWith((req, headers) => {
      seen = { req, headers };
      return {};
    });
    const r = await ceremony.startAppend({ ...CALL, clientAddress: '' }, { userId: 'usr-1', processId: 'cpr-1', username: 'u', client: { ...CLIENT, remoteAddress: '', userAgent: '' }, forcePasskeyAppend: false, situation: 'default' });
    expect(r).toEqual({ appendAllow: false, attestationOptions: '', detectionTags: [] });
    expect(seen!.req.clientInformation).toMatchObject({ remoteAddress: 'unknown', userAgent: 'unknown' });
    expect(seen!.headers.get(HEADERS.clientAddress)).toBeNull();
  });

  it('turns a refusal into a RelayedError of its kind, with the ceremony\'s type, message and validation', async () => {
    const ceremony = ceremonyWith(() => {
      throw toConnectError(invalidArgument('client_information_invalid', 'userAgent is missing', [{ field: 'clientInformation.userAgent', message: 'is missing' }]));
    });
    const err = await ceremony.startAppend(CALL, { userId: 'usr-1', processId: 'cpr-1', username: 'u', client: CLIENT, forcePasskeyAppend: false, situation: 'default' }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(RelayedError);
    expect(err).toMatchObject({ kind: 'invalid_argument', type: 'client_information_invalid', message: 'userAgent is missing', validation: [{ field: 'clientInformation.userAgent', message: 'is missing' }] });
    expect((err as RelayedError).relayed).toBeInstanceOf(ConnectError);
  });
});

describe('ceremony adapter: login finishes', () => {
  type LoginAnswers = { finishLogin?: (req: FinishLoginRequest) => object; finishMediation?: (req: FinishMediationRequest) => object };
  const ceremonyAnswering = (answers: LoginAnswers) =>
    rpcPasskeyCeremonies(
      createClient(
        CeremonyService,
        createRouterTransport((router) =>
          router.service(CeremonyService, {
            finishLogin: (req) => answers.finishLogin!(req),
            finishMediation: (req) => answers.finishMediation!(req),
          }),
        ),
      ),
    );
  const LOGIN = { userId: 'usr-1', processId: 'cpr-1', assertionResponse: '{}', trackingId: 't', client: CLIENT };
  const MEDIATION = { processId: 'cpr-1', assertionResponse: '{}', trackingId: 't', client: CLIENT };
  const PASSKEY = { id: 'cre-1', userId: 'usr-1', username: 'ada@example.com', challengeId: 'cha-1', ceremonyType: 'local' };

  it('never asks the ceremony to sign (it would call back into connect), and reads the passkey used', async () => {
    const seen: boolean[] = [];
    const ceremony = ceremonyAnswering({
      finishLogin: (req) => (seen.push(req.signPasskeyData === false), { passkeyData: PASSKEY }),
      finishMediation: (req) => (seen.push(req.signPasskeyData === false), { passkeyData: PASSKEY }),
    });
    expect(await ceremony.finishLogin(CALL, LOGIN)).toEqual({ passkeyDeleted: false, passkeyData: PASSKEY });
    expect(await ceremony.finishMediation(CALL, MEDIATION)).toEqual({ passkeyDeleted: false, passkeyData: PASSKEY });
    expect(seen).toEqual([true, true]);
  });

  it('turns both ways the ceremony says "this passkey is gone" into the one value passkeyDeleted', async () => {
    const gone = () => {
      throw toConnectError(notFound('credential_not_found', 'not a passkey of user usr-1'));
    };
    expect(await ceremonyAnswering({ finishLogin: gone }).finishLogin(CALL, LOGIN)).toEqual({ passkeyDeleted: true });
    expect(await ceremonyAnswering({ finishMediation: () => ({ error: { type: 'credentialDeleted' } }) }).finishMediation(CALL, MEDIATION)).toEqual({ passkeyDeleted: true });
    // Deleted while the mediation ran (verifyAssertion's 404): gone as well.
    expect(await ceremonyAnswering({ finishMediation: gone }).finishMediation(CALL, MEDIATION)).toEqual({ passkeyDeleted: true });
  });

  it('passes every other refusal on as an error, a not_found of something else included', async () => {
    const ceremony = ceremonyAnswering({
      finishLogin: () => {
        throw toConnectError(notFound('project_not_found', 'no such project'));
      },
      finishMediation: () => {
        throw toConnectError(invalidArgument('assertion_invalid', 'bad signature'));
      },
    });
    expect(await ceremony.finishLogin(CALL, LOGIN).catch((e: unknown) => e)).toMatchObject({ kind: 'not_found', type: 'project_not_found' });
    expect(await ceremony.finishMediation(CALL, MEDIATION).catch((e: unknown) => e)).toMatchObject({ kind: 'invalid_argument', type: 'assertion_invalid' });
  });
});

describe('relayError', () => {
  it('keeps the retry-after of a limit, and makes outages, time-outs and internal errors "unavailable"', () => {
    expect(relayError(toConnectError(resourceExhausted('too_many_attempts', 'slow down', 7)))).toMatchObject({ kind: 'resource_exhausted', type: 'too_many_attempts', retryAfterSeconds: 7 });
    for (const code of [Code.Unavailable, Code.DeadlineExceeded, Code.Internal, Code.Unknown, Code.Aborted]) {
      expect(relayError(new ConnectError('down', code))).toMatchObject({ kind: 'unavailable', type: 'upstream_error' });
    }
    const bug = new TypeError('not a ConnectError');
    expect(relayError(bug)).toBe(bug);
  });

  it('is answered by the error interceptor with the other service\'s own error, unchanged', async () => {
    const original = toConnectError(invalidArgument('attestation_invalid', 'bad attestation', [{ field: 'attestationResponse', message: 'bad' }]));
    const relayed = relayError(original);
    const handler = errorInterceptor()(async () => {
      throw relayed;
    });
    const thrown = await handler({} as never).catch((e: unknown) => e);
    expect(thrown).toBe(original);
    expect((thrown as ConnectError).findDetails(ErrorInfoSchema)[0]).toMatchObject({ type: 'attestation_invalid', details: 'bad attestation' });
  });
});
