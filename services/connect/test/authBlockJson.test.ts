/**
 * The JSON of every sign-up/login block, as the browser gets it: each flow runs through the
 * AuthFlowService handlers in memory (over the fakes of the ceremony and challenge ports), and its
 * answer is rendered by the gateway's own code for the route (answerBody: the response_body field,
 * then the JSON codec). The text is compared byte for byte, key order included, with the recorded
 * fixture authBlockJson.fixture.txt: the published web SDKs (web-js, web-core 2.x and 3.x) read
 * these objects, so how the proto and the mapping carry a block may change, its JSON may not.
 *
 * Only values that differ per run (tokens, handles, times) are replaced, each distinct value by a
 * numbered placeholder that says what JSON type it had (`"<string#1>"`, `"<integer#2>"`), so the
 * fixture still shows that shortSession and sessionToken carry the same token. A block variant no
 * flow produces today (signup-init's full-name error and block error) is rendered from its builder
 * through the handler's mapping and the codec, as the flows' answers are.
 *
 * Each answer is also checked against the OpenAPI document the gateway serves (its schema for the
 * route, objects closed), so the document describes every block's data as it is sent.
 *
 * The fixture is recorded, not written by hand: `npx vitest run -u` on this file rewrites it, and
 * the diff is the review.
 */
import { create, fromBinary, toBinary, type DescMessage, type Message } from '@bufbuild/protobuf';
import { createClient, type Client } from '@connectrpc/connect';
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { AuthFlowService, ProcessResponseSchema } from '../../../gen/passkeyauth/connect/v1/auth_flow_service_pb.js';
import { discoverServices } from '../../../gateway/src/discoverServices.js';
import { encodeMessage } from '../../../gateway/src/jsonCodec.js';
import { buildOpenApi } from '../../../gateway/src/openapi/buildOpenApi.js';
import type { JsonSchema, OpenApiDocument, OpenApiResponse } from '../../../gateway/src/openapi/jsonSchema.js';
import { answerBody } from '../../../gateway/src/pipeline/respond.js';
import { buildRouteTable, type Route } from '../../../gateway/src/routeTable.js';
import { HEADERS } from '../../runtime/context.js';
import { invalidArgument } from '../../runtime/errors.js';
import { ASSERTION_OPTIONS, ATTESTATION_OPTIONS, FakeCeremonies, FakeOneTimeCodes } from '../../../test/kit/fakeCeremonyAndChallenge.js';
import { addFirstBlockSwitch } from '../src/auth-flows/domain/addFirstBlockSwitch.js';
import { buildSignupInitBlock } from '../src/auth-flows/domain/buildSignupInitBlock.js';
import { blockMessage } from '../src/auth-flows/handlers/blockMessage.js';
import { ensureUserForIdentifier } from '../src/connect-flows/domain/ensureUserForIdentifier.js';
import { createProject } from '../src/projects/domain/createProject.js';
import { verifyProjectToken } from '../src/projects/domain/verifyProjectToken.js';
import { inMemoryTransport, startTestEnv, type TestEnv } from './support.js';

let env: TestEnv;
let routes: Route[];
let doc: OpenApiDocument;
let ajv: Ajv2020;
let ceremony: FakeCeremonies;
let codes: FakeOneTimeCodes;
let rpc: Client<typeof AuthFlowService>;
let projectId: string;

beforeAll(async () => {
  env = await startTestEnv();
  routes = buildRouteTable(await discoverServices());
  doc = buildOpenApi(routes, 'frontend');
  // Formats are not what this checks (the e2e conformance test does); the discriminator is.
  ajv = new Ajv2020({ allErrors: true, strict: true, discriminator: true, validateFormats: false });
  ajv.addSchema({ $id: DOC_ID, $defs: closed(rebased(doc.components.schemas)) });
  projectId = (await createProject(env.deps, { name: 'Blocks', rpId: 'localhost', origins: ['http://localhost:3000'], selfServiceFlows: 'enabled' })).project._id;
});
afterAll(() => env?.close());

beforeEach(() => {
  ceremony = new FakeCeremonies();
  codes = new FakeOneTimeCodes();
  codes.wrongCode = () => invalidArgument('challenge_value_invalid', 'the value is wrong; 4 attempt(s) left');
  rpc = createClient(AuthFlowService, inMemoryTransport({ ...env.deps, ceremony, challenges: codes }));
});

const CAPABLE = { isUserVerifyingPlatformAuthenticatorAvailable: true, isConditionalMediationAvailable: true };
const INCAPABLE = { isUserVerifyingPlatformAuthenticatorAvailable: false, isConditionalMediationAvailable: false };

/** The headers the gateway sets on a frontend call (see authFlowService.test.ts). */
async function as(processToken?: string) {
  const headers: Record<string, string> = { [HEADERS.requestId]: 'req-blocks', [HEADERS.projectId]: projectId, [HEADERS.clientAddress]: '192.0.2.9', [HEADERS.userAgent]: 'Mozilla/5.0 (blocks)' };
  if (processToken) {
    const claims = await verifyProjectToken(env.deps, projectId, processToken, 'process');
    headers[HEADERS.tokenKind] = 'process';
    headers[HEADERS.processId] = String(claims!.sub);
    if (claims!.family) headers[HEADERS.processFamily] = String(claims!.family);
  }
  return { headers };
}

/** Values that differ per run, by JSON key: replaced by numbered placeholders. */
const PER_RUN = new Set(['token', 'expiresAt', 'newClientEnvHandle', 'shortSession', 'longSession', 'sessionToken', 'refreshToken', 'retryNotBefore']);

function normalized(json: string): string {
  const seen = new Map<unknown, string>();
  const placeholder = (key: string, v: unknown): string => {
    let kind: string;
    if (typeof v === 'string') kind = 'string';
    else if (typeof v === 'number' && Number.isSafeInteger(v)) kind = 'integer';
    else throw new Error(`${key}: expected a string or an integer, got ${JSON.stringify(v)}`);
    if (!seen.has(v)) seen.set(v, `<${kind}#${seen.size + 1}>`);
    return seen.get(v)!;
  };
  const walk = (v: unknown): unknown => {
    if (Array.isArray(v)) return v.map(walk);
    if (!v || typeof v !== 'object') return v;
    return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, PER_RUN.has(k) ? placeholder(k, x) : walk(x)]));
  };
  return JSON.stringify(walk(JSON.parse(json)));
}

const DOC_ID = 'urn:passkeyauth:openapi:frontend';

/** Points `#/components/schemas/X` at the document's schemas as registered with ajv. */
function rebased<T>(value: T): T {
  if (Array.isArray(value)) return value.map(rebased) as T;
  if (!value || typeof value !== 'object') return value;
  return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, k === '$ref' && typeof v === 'string' ? v.replace('#/components/schemas/', `${DOC_ID}#/$defs/`) : rebased(v)])) as T;
}

/** Closes every object schema that lists properties: an answer may carry only documented fields. */
function closed<T>(value: T): T {
  if (Array.isArray(value)) return value.map(closed) as T;
  if (!value || typeof value !== 'object') return value;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value)) out[k] = k === 'properties' || k === '$defs' ? Object.fromEntries(Object.entries(v as object).map(([name, x]) => [name, closed(x)])) : closed(v);
  if ('properties' in out && !('additionalProperties' in out)) out.additionalProperties = false;
  return out as T;
}

/** The 200 body schema the document gives for a route, compiled once per route. */
const validators = new Map<Route, ValidateFunction>();
function documented(route: Route): ValidateFunction {
  let validate = validators.get(route);
  if (!validate) {
    const response = doc.paths[route.template]![route.httpMethod.toLowerCase()]!.responses['200'] as OpenApiResponse;
    validate = ajv.compile(closed(rebased(response.content!['application/json'].schema as JsonSchema)));
    validators.set(route, validate);
  }
  return validate;
}

/** The recorded answers, in the order the flows produced them: one "# name" line, then the JSON body. */
const recorded: string[] = [];

/**
 * Renders an RPC's answer as the gateway does for its route, records it under `name`, and checks
 * it against the OpenAPI document's schema for the route (closed: every field documented).
 */
function record<T extends Message>(name: string, rpcName: string, response: T): T {
  const route = routes.find((r) => r.service.typeName === AuthFlowService.typeName && r.method.name === rpcName);
  if (!route) throw new Error(`no route for AuthFlowService/${rpcName}`);
  const body = answerBody(route, response, 'req-blocks', 0);
  const validate = documented(route);
  expect(validate(body) ? [] : validate.errors, `${name}: the answer against the OpenAPI document`).toEqual([]);
  recorded.push(`# ${name}`, normalized(JSON.stringify(body)));
  return response;
}

/** A block the flows do not produce today, through the handler's mapping, the wire and the codec. */
function recordBuilt(name: string, block: Parameters<typeof blockMessage>[0]): void {
  const desc: DescMessage = ProcessResponseSchema;
  const message = create(ProcessResponseSchema, { blockBody: blockMessage(block), common: { appName: 'Blocks', frontendApiUrl: 'http://localhost:8080', hideBadge: false, environment: 'development' } });
  const received = fromBinary(ProcessResponseSchema, toBinary(ProcessResponseSchema, message));
  recorded.push(`# ${name}`, normalized(JSON.stringify(encodeMessage(desc, received))));
}

describe('sign-up (F1)', () => {
  it('init, identifier errors, a passkey, passkey-appended and completed (with passkeyOperation)', async () => {
    const init = record('ProcessInit signup-init (login-init as alternative)', 'ProcessInit', await rpc.processInit({ clientInformation: CAPABLE, preferredBlock: 'signup-init' }, await as()));
    const call = await as(init.token);
    record('SignupInit signup-init with identifier errors and a full name', 'SignupInit', await rpc.signupInit({ identifiers: [{ type: 'email', identifier: 'not-an-address' }, { type: 'email', identifier: 'b@example.com' }], fullName: ' Ada ' }, call));
    ceremony.startedAppend = { ...ceremony.startedAppend, decisionInsights: { tag: 'append-ok', isRestrictedBrowser: false, variant: 'after-hybrid', auto: false, conditional: false } };
    record('SignupInit passkey-append (variant, email-verify as alternative)', 'SignupInit', await rpc.signupInit({ identifiers: [{ type: 'email', identifier: 'Ada@Example.com' }], fullName: 'Ada Lovelace' }, call));
    ceremony.startedAppend = { appendAllow: true, attestationOptions: ATTESTATION_OPTIONS, detectionTags: [] };
    record('IdentifierUpdate passkey-append with error', 'IdentifierUpdate', await rpc.identifierUpdate({ identifierType: 'email', value: 'nope' }, call));
    record('ProcessGet passkey-append', 'ProcessGet', await rpc.processGet({ preferredBlock: '' }, call));
    record('PasskeyAppendStart passkey-append', 'PasskeyAppendStart', await rpc.passkeyAppendStart({ clientInformation: {} }, call));
    record('PasskeyAppendFinish passkey-appended', 'PasskeyAppendFinish', await rpc.passkeyAppendFinish({ signedChallenge: '{"id":"att"}' }, call));
    record('ProcessComplete completed (passkeyOperation append)', 'ProcessComplete', await rpc.processComplete({}, call));
  });

  it('without a token, a code: email-verify (retryNotBefore, error), completed without passkeyOperation, continueOnOtherDevice', async () => {
    const signup = record('SignupInit passkey-append with newProcess', 'SignupInit', await rpc.signupInit({ identifiers: [{ type: 'email', identifier: 'code@example.com' }] }, await as()));
    const call = await as(signup.processResponse!.newProcess!.token);
    record('BlockSkip email-verify (retryNotBefore)', 'BlockSkip', await rpc.blockSkip({}, call));
    record('IdentifierVerifyStatus email-verify', 'IdentifierVerifyStatus', await rpc.identifierVerifyStatus({}, call));
    record('IdentifierUpdate email-verify', 'IdentifierUpdate', await rpc.identifierUpdate({ identifierType: 'email', value: 'Fixed@Example.com' }, call));
    record('IdentifierVerifyStart email-verify', 'IdentifierVerifyStart', await rpc.identifierVerifyStart({ identifierType: 'email', verificationType: 'email-otp' }, call));
    record('IdentifierVerifyFinish email-verify with error', 'IdentifierVerifyFinish', await rpc.identifierVerifyFinish({ code: '000000', identifierType: 'email', verificationType: 'email-otp' }, call));
    record('IdentifierVerifyFinish passkey-append (no alternative once verified)', 'IdentifierVerifyFinish', await rpc.identifierVerifyFinish({ code: FakeOneTimeCodes.CODE, identifierType: 'email', verificationType: 'email-otp' }, call));
    record('BlockSkip completed (no passkeyOperation)', 'BlockSkip', await rpc.blockSkip({}, call));
    record('IdentifierVerifyStatus continueOnOtherDevice', 'IdentifierVerifyStatus', await rpc.identifierVerifyStatus({}, call));
  });

  it('with a phone number on a browser without passkeys: phone-verify', async () => {
    const init = await rpc.processInit({ clientInformation: INCAPABLE, preferredBlock: 'signup-init' }, await as());
    record('SignupInit phone-verify', 'SignupInit', await rpc.signupInit({ identifiers: [{ type: 'phone', identifier: '+4915112345678' }] }, await as(init.token)));
  });

  it('ProcessReset: signup-init with newProcess', async () => {
    const init = await rpc.processInit({ clientInformation: CAPABLE, preferredBlock: 'signup-init' }, await as());
    const call = await as(init.token);
    await rpc.signupInit({ identifiers: [{ type: 'email', identifier: 'reset@example.com' }] }, call);
    record('ProcessReset signup-init with newProcess', 'ProcessReset', await rpc.processReset({}, call));
  });

  it('signup-init variants no flow produces today, from the builder', () => {
    recordBuilt(
      'built signup-init with a full-name error and a block error',
      addFirstBlockSwitch(
        buildSignupInitBlock({
          identifiers: [{ type: 'email', identifier: 'x@example.com', error: { code: 'identifier_invalid', message: 'bad' } }],
          fullNameError: { code: 'full_name_required', message: 'enter your name' },
          error: { code: 'signup_failed', message: 'try again' },
        }),
      ),
    );
  });
});

describe('login (F2)', () => {
  it('init with conditional UI, fieldError, passkey-verify (cda), completed (passkeyOperation verify)', async () => {
    await ensureUserForIdentifier(env.deps, projectId, { type: 'email', value: 'turing@example.com' }, undefined);
    const init = record('ProcessInit login-init with conditionalUIChallenge', 'ProcessInit', await rpc.processInit({ clientInformation: CAPABLE, preferredBlock: 'login-init' }, await as()));
    const call = await as(init.token);
    record('AuthLoginInit login-init with fieldError', 'AuthLoginInit', await rpc.authLoginInit({ identifierValue: 'nobody@example.com', isPhone: false }, call));
    ceremony.startedLogin = { loginAllow: true, assertionOptions: ASSERTION_OPTIONS, decisionInsights: { tag: 'login-ok', isCdaCandidate: true, preferImmediatelyAvailable: false } };
    record('AuthLoginInit passkey-verify (loginHint cda, email-verify as alternative)', 'AuthLoginInit', await rpc.authLoginInit({ identifierValue: 'turing@example.com', isPhone: false }, call));
    ceremony.startedLogin = { loginAllow: true, assertionOptions: ASSERTION_OPTIONS };
    record('PasskeyLoginStart passkey-verify', 'PasskeyLoginStart', await rpc.passkeyLoginStart({}, call));
    ceremony.passkeyData = { id: 'cre-3', username: 'turing@example.com', challengeId: 'cha-3', ceremonyType: 'cda' };
    record('PasskeyLoginFinish completed (passkeyOperation verify, cda)', 'PasskeyLoginFinish', await rpc.passkeyLoginFinish({ signedChallenge: '{"id":"a"}' }, call));
  });

  it('init without conditional UI; autofill with a deleted passkey: login-init with fieldError', async () => {
    const init = record('ProcessInit login-init without conditional UI', 'ProcessInit', await rpc.processInit({ clientInformation: INCAPABLE, preferredBlock: 'login-init' }, await as()));
    ceremony.mediationCredentialDeleted = true;
    record('PasskeyMediationFinish login-init credential_deleted', 'PasskeyMediationFinish', await rpc.passkeyMediationFinish({ signedChallenge: '{"id":"m"}' }, await as(init.token)));
  });

  it('autofill: completed for the passkey\'s user', async () => {
    const { user } = await ensureUserForIdentifier(env.deps, projectId, { type: 'email', value: 'noether@example.com' }, undefined);
    ceremony.passkeyData = { id: 'cre-4', userId: user._id, username: 'noether@example.com', challengeId: 'cha-4', ceremonyType: 'local' };
    const init = await rpc.processInit({ clientInformation: CAPABLE, preferredBlock: 'login-init' }, await as());
    record('PasskeyMediationFinish completed', 'PasskeyMediationFinish', await rpc.passkeyMediationFinish({ signedChallenge: '{"id":"m"}' }, await as(init.token)));
  });
});

describe('the recorded JSON', () => {
  it('is byte for byte the fixture, and covers every block type', async () => {
    const text = recorded.join('\n') + '\n';
    const blockTypes = new Set([...text.matchAll(/"blockType":"([a-z-]+)"/g)].map((m) => m[1]));
    expect([...blockTypes].sort()).toEqual(['completed', 'email-verify', 'login-init', 'passkey-append', 'passkey-appended', 'passkey-verify', 'phone-verify', 'signup-init']);
    await expect(text).toMatchFileSnapshot('./authBlockJson.fixture.txt');
  });
});
