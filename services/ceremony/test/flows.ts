/** Ceremony steps as the application's backend and the browser would run them, for the tests. */
import type { Client } from '@connectrpc/connect';
import type { CeremonyService } from '../../../gen/passkeyauth/ceremony/v1/ceremony_service_pb.js';
import { SoftAuthenticator, type CreateInput, type GetInput, type SoftCredential } from '../../../test/kit/softAuthenticator.js';
import { ORIGIN } from '../../../test/kit/fakeConnect.js';
import { as, clientInformation } from './support.js';

export interface AppendOptions {
  projectId?: string;
  userId?: string;
  processId?: string;
  username?: string;
  origin?: string;
  auth?: SoftAuthenticator;
  create?: Partial<CreateInput>;
  /** Change the response before it is sent. */
  mutate?: (json: Record<string, unknown>) => unknown;
  finishUserId?: string;
  finishProcessId?: string;
  finishProjectId?: string;
  sendNotification?: boolean;
}

export async function startAppend(client: Client<typeof CeremonyService>, o: AppendOptions = {}) {
  return client.startAppend(
    {
      userId: o.userId ?? 'usr-1',
      processId: o.processId ?? 'proc-1',
      username: o.username ?? 'ada@example.com',
      clientInformation: clientInformation(),
      passkeyIntelFlags: {},
      situation: 'default',
    },
    as(o.projectId ?? 'pro-1'),
  );
}

export function finishAppendRequest(o: AppendOptions, attestationResponse: string) {
  return {
    userId: o.finishUserId ?? o.userId ?? 'usr-1',
    processId: o.finishProcessId ?? o.processId ?? 'proc-1',
    attestationResponse,
    trackingId: 'trk-1',
    clientInformation: clientInformation(),
    ...(o.sendNotification !== undefined ? { sendNotification: o.sendNotification } : {}),
  };
}

/** B2, the authenticator, B3: returns every step's result (B3's as a promise, to test failures). */
export async function appendPasskey(client: Client<typeof CeremonyService>, o: AppendOptions = {}) {
  const auth = o.auth ?? new SoftAuthenticator();
  const start = await startAppend(client, o);
  const { json, credential } = auth.createFromOptions(start.attestationOptions, o.origin ?? ORIGIN, o.create);
  const body = o.mutate ? o.mutate(json) : json;
  const attestationResponse = typeof body === 'string' ? body : JSON.stringify(body);
  const request = finishAppendRequest(o, attestationResponse);
  const finish = client.finishAppend(request, as(o.finishProjectId ?? o.projectId ?? 'pro-1'));
  return { auth, start, json, credential, request, finish };
}

/** B2 → B3 that must succeed. */
export async function registered(client: Client<typeof CeremonyService>, o: AppendOptions = {}) {
  const r = await appendPasskey(client, o);
  return { ...r, finished: await r.finish };
}

export interface LoginOptions {
  projectId?: string;
  userId?: string;
  processId?: string;
  strategy?: 'standard' | 'minimize' | 'maximize';
  origin?: string;
  get?: Partial<GetInput>;
  mutate?: (json: Record<string, unknown>) => unknown;
  finishUserId?: string;
  finishProcessId?: string;
  finishProjectId?: string;
  signPasskeyData?: boolean;
}

export async function startLogin(client: Client<typeof CeremonyService>, o: LoginOptions = {}) {
  return client.startLogin(
    { userId: o.userId ?? 'usr-1', processId: o.processId ?? 'proc-2', crossDeviceAuthenticationStrategy: o.strategy ?? 'standard', clientInformation: clientInformation() },
    as(o.projectId ?? 'pro-1'),
  );
}

/** B4, the authenticator, B5 (as a promise). */
export async function login(client: Client<typeof CeremonyService>, auth: SoftAuthenticator, credential: SoftCredential, o: LoginOptions = {}) {
  const start = await startLogin(client, o);
  const json = auth.getFromOptions(start.assertionOptions, credential, o.origin ?? ORIGIN, o.get);
  const body = o.mutate ? o.mutate(json) : json;
  const request = {
    userId: o.finishUserId ?? o.userId ?? 'usr-1',
    processId: o.finishProcessId ?? o.processId ?? 'proc-2',
    assertionResponse: typeof body === 'string' ? body : JSON.stringify(body),
    trackingId: 'trk-2',
    clientInformation: clientInformation(),
    ...(o.signPasskeyData !== undefined ? { signPasskeyData: o.signPasskeyData } : {}),
  };
  const finish = client.finishLogin(request, as(o.finishProjectId ?? o.projectId ?? 'pro-1'));
  return { start, json, request, finish };
}
