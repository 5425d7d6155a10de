/**
 * The register ceremony of the bench, as an application backend runs it: create the user
 * (POST /v2/users), start the append (B2), let the software authenticator create the passkey, and
 * finish the append (B3). Also how the login and mediation scenarios get their users.
 */
import { SoftAuthenticator, type SoftCredential } from '../kit/softAuthenticator.js';
import { backendClientInformation } from '../kit/startStack.js';
import { expectOk, type JsonClient } from './createJsonClient.js';

/** What the driver talks to: the gateway's backend API (or the baseline) for one project. */
export interface BenchTarget {
  client: JsonClient;
  /** An origin of the project, which the authenticator's client data names. */
  origin: string;
  /** The frontend API (no Authorization; the page names the project in a header), for the connect-login scenario. */
  frontend?: { client: JsonClient; projectId: string };
}

export interface PasskeyUser {
  userID: string;
  auth: SoftAuthenticator;
  credential: SoftCredential;
  /** The user's own browser: a distinct clientEnvHandle, as a real application passes per browser. */
  clientInformation: Record<string, unknown>;
}

/**
 * clientInformation of the n-th simulated browser. Without distinct handles every user would share
 * one client environment, whose document (a list of all its users) would grow with every user the
 * bench creates, which no real deployment sees.
 */
export function clientInformationFor(envHandle: string): Record<string, unknown> {
  return { ...backendClientInformation, clientEnvHandle: envHandle };
}

export async function createUser(target: BenchTarget, fullName: string): Promise<string> {
  const created = await expectOk('create user', target.client.call('POST', '/v2/users', { fullName, status: 'active' }));
  return created.userID as string;
}

export async function registerPasskeyUser(target: BenchTarget, name: string): Promise<PasskeyUser> {
  const clientInformation = clientInformationFor(`bench-env-${name}`);
  const userID = await createUser(target, `Bench ${name}`);
  return { ...(await appendPasskey(target, userID, `${name}@bench.example`, clientInformation)), userID, clientInformation };
}

export async function appendPasskey(target: BenchTarget, userID: string, username: string, clientInformation: Record<string, unknown>) {
  const processID = `bench-append-${userID}`;
  const start = await expectOk(
    'B2 append start',
    target.client.call('POST', '/v2/passkey/append/start', { userID, processID, username, clientInformation, passkeyIntelFlags: {}, situation: 'default' }),
  );
  const auth = new SoftAuthenticator({ flags: { be: true } });
  const { json, credential } = auth.createFromOptions(start.attestationOptions as string, target.origin);
  await expectOk(
    'B3 append finish',
    target.client.call('POST', '/v2/passkey/append/finish', { userID, processID, attestationResponse: JSON.stringify(json), trackingID: 'bench-append', clientInformation }),
  );
  return { auth, credential };
}
