/**
 * The gateway's JSON codec: type checks that name the field, int64 as JSON numbers, implicit
 * fields always present, query parameters (including `filter[]`) as JSON.
 */
import { create, createFileRegistry, type DescMessage, type Message } from '@bufbuild/protobuf';
import { FieldDescriptorProto_Label as Label, FieldDescriptorProto_Type as Type, FileDescriptorProtoSchema } from '@bufbuild/protobuf/wkt';
import { describe, expect, it } from 'vitest';
import {
  ChallengeSchema,
  CreateChallengeRequestSchema,
  CreateChallengeResponseSchema,
  DeleteUserChallengesResponseSchema,
  type CreateChallengeRequest,
} from '../../gen/passkeyauth/challenge/v1/challenge_service_pb.js';
import { BlockBodySchema, ProcessResponseSchema } from '../../gen/passkeyauth/connect/v1/auth_flow_service_pb.js';
import { GetJwksResponseSchema, GetSessionConfigResponseSchema } from '../../gen/passkeyauth/connect/v1/project_service_pb.js';
import {
  ListIdentifiersRequestSchema,
  ListIdentifiersResponseSchema,
  UserSchema,
  type ListIdentifiersRequest,
} from '../../gen/passkeyauth/connect/v1/user_service_pb.js';
import { decodeMessage, encodeMessage, JsonShapeError, queryToJson, type TypeProblem } from '../src/jsonCodec.js';

/** test.v1.Kitchen: one field of each kind the interface's protos do not (yet) use. */
const Kitchen: DescMessage = (() => {
  const f = (name: string, number: number, type: Type, extra: Record<string, unknown> = {}) => ({
    name,
    number,
    jsonName: name,
    type,
    label: Label.OPTIONAL,
    ...extra,
  });
  const file = create(FileDescriptorProtoSchema, {
    name: 'test/v1/kitchen.proto',
    package: 'test.v1',
    syntax: 'proto3',
    enumType: [{ name: 'Color', value: [{ name: 'COLOR_UNSPECIFIED', number: 0 }, { name: 'COLOR_RED', number: 1 }] }],
    messageType: [
      {
        name: 'Kitchen',
        field: [
          f('u', 1, Type.UINT32),
          f('d', 2, Type.DOUBLE),
          f('b', 3, Type.BYTES),
          f('e', 4, Type.ENUM, { typeName: '.test.v1.Color' }),
          f('m', 5, Type.MESSAGE, { typeName: '.test.v1.Kitchen.MEntry', label: Label.REPEATED }),
          f('ri', 6, Type.INT64, { label: Label.REPEATED }),
          f('child', 7, Type.MESSAGE, { typeName: '.test.v1.Kitchen' }),
          f('children', 8, Type.MESSAGE, { typeName: '.test.v1.Kitchen', label: Label.REPEATED }),
          f('flag', 9, Type.BOOL),
          f('big', 10, Type.INT64),
          f('s', 11, Type.SINT32),
          f('ub', 12, Type.UINT64),
          f('counts', 13, Type.MESSAGE, { typeName: '.test.v1.Kitchen.CountsEntry', label: Label.REPEATED }),
          f('kids', 14, Type.MESSAGE, { typeName: '.test.v1.Kitchen.KidsEntry', label: Label.REPEATED }),
        ],
        nestedType: [
          { name: 'MEntry', field: [f('key', 1, Type.STRING), f('value', 2, Type.INT32)], options: { mapEntry: true } },
          { name: 'CountsEntry', field: [f('key', 1, Type.STRING), f('value', 2, Type.INT64)], options: { mapEntry: true } },
          { name: 'KidsEntry', field: [f('key', 1, Type.STRING), f('value', 2, Type.MESSAGE, { typeName: '.test.v1.Kitchen' })], options: { mapEntry: true } },
        ],
      },
    ],
  });
  const desc = createFileRegistry(file, () => undefined).getMessage('test.v1.Kitchen');
  if (!desc) throw new Error('Kitchen missing');
  return desc;
})();

/** The problems a decode reports (fails the test if it does not throw JsonShapeError). */
function problemsOf(desc: DescMessage, json: Record<string, unknown>): TypeProblem[] {
  try {
    decodeMessage(desc, json);
  } catch (err) {
    expect(err).toBeInstanceOf(JsonShapeError);
    return (err as JsonShapeError).problems;
  }
  throw new Error('expected a JsonShapeError');
}

const validB1 = () => ({
  userID: 'usr-1',
  challengeType: 'email_otp',
  identifierValue: 'a@example.com',
  clientInformation: {
    remoteAddress: '::ffff:172.18.0.1',
    userAgent: 'Mozilla/5.0',
    userVerifyingPlatformAuthenticatorAvailable: false,
    conditionalMediationAvailable: true,
    parsedDeviceInfo: { browserName: 'Chrome', osName: 'Mac OS' },
  },
  challengeMetadata: { purpose: 'signup', nested: { n: 1, list: [1, 'two', null] } },
  lifetimeSeconds: 600,
});

describe('decodeMessage', () => {
  it('builds the message from the interface JSON, int64 from a JSON number', () => {
    const msg = decodeMessage<CreateChallengeRequest>(CreateChallengeRequestSchema, validB1());
    expect(msg.userId).toBe('usr-1');
    expect(msg.challengeType).toBe('email_otp');
    expect(msg.lifetimeSeconds).toBe(600n);
    expect(msg.clientInformation?.remoteAddress).toBe('::ffff:172.18.0.1');
    // An explicit false is kept (the field has presence; protovalidate requires it to be set).
    expect(msg.clientInformation?.userVerifyingPlatformAuthenticatorAvailable).toBe(false);
    expect(msg.clientInformation?.conditionalMediationAvailable).toBe(true);
    expect(msg.clientInformation?.parsedDeviceInfo?.browserName).toBe('Chrome');
    expect(msg.challengeMetadata).toEqual({ purpose: 'signup', nested: { n: 1, list: [1, 'two', null] } });
  });

  it('ignores unknown fields', () => {
    const msg = decodeMessage<CreateChallengeRequest>(CreateChallengeRequestSchema, { ...validB1(), somethingElse: { x: 1 }, another: 5 });
    expect(msg.userId).toBe('usr-1');
  });

  it('treats JSON null as "not set"', () => {
    const msg = decodeMessage<CreateChallengeRequest>(CreateChallengeRequestSchema, { ...validB1(), lifetimeSeconds: null, challengeMetadata: null });
    expect(msg.lifetimeSeconds).toBeUndefined();
    expect(msg.challengeMetadata).toBeUndefined();
  });

  it('reports every wrong type at once, naming each field by its JSON path', () => {
    const problems = problemsOf(CreateChallengeRequestSchema, {
      userID: 5,
      challengeType: true,
      identifierValue: ['a@example.com'],
      lifetimeSeconds: '600',
      clientInformation: { userAgent: 1, userVerifyingPlatformAuthenticatorAvailable: 'yes', parsedDeviceInfo: [] },
      challengeMetadata: [1, 2],
    });
    expect(problems).toEqual([
      { field: 'userID', message: 'must be a string' },
      { field: 'challengeType', message: 'must be a string' },
      { field: 'identifierValue', message: 'must be a string' },
      { field: 'clientInformation.userAgent', message: 'must be a string' },
      { field: 'clientInformation.userVerifyingPlatformAuthenticatorAvailable', message: 'must be a boolean' },
      { field: 'clientInformation.parsedDeviceInfo', message: 'must be an object' },
      { field: 'challengeMetadata', message: 'must be an object' },
      { field: 'lifetimeSeconds', message: 'must be an integer' },
    ]);
  });

  it('names the fields in the error message too', () => {
    expect(() => decodeMessage(CreateChallengeRequestSchema, { userID: 1 })).toThrow('userID: must be a string');
  });

  it('rejects int64 values that are not exact JSON integers', () => {
    for (const bad of [1.5, 2 ** 53, -(2 ** 53), '5', true, Number.NaN]) {
      expect(problemsOf(CreateChallengeRequestSchema, { lifetimeSeconds: bad })).toEqual([{ field: 'lifetimeSeconds', message: 'must be an integer' }]);
    }
    expect(decodeMessage<CreateChallengeRequest>(CreateChallengeRequestSchema, { lifetimeSeconds: 2 ** 53 - 1 }).lifetimeSeconds).toBe(2n ** 53n - 1n);
    expect(decodeMessage<CreateChallengeRequest>(CreateChallengeRequestSchema, { lifetimeSeconds: -5 }).lifetimeSeconds).toBe(-5n);
  });

  it('checks int32 range and integrality', () => {
    expect(decodeMessage<ListIdentifiersRequest>(ListIdentifiersRequestSchema, { page: 2 ** 31 - 1, pageSize: -(2 ** 31) }).page).toBe(2 ** 31 - 1);
    expect(problemsOf(ListIdentifiersRequestSchema, { page: 2 ** 31, pageSize: 1.5 })).toEqual([
      { field: 'page', message: 'must be an integer (32-bit)' },
      { field: 'pageSize', message: 'must be an integer (32-bit)' },
    ]);
    expect(problemsOf(ListIdentifiersRequestSchema, { page: '1' })).toEqual([{ field: 'page', message: 'must be an integer (32-bit)' }]);
  });

  it('checks repeated fields: an array, and each item with its index', () => {
    expect(problemsOf(ListIdentifiersRequestSchema, { filter: 'identifierType:eq:email' })).toEqual([{ field: 'filter', message: 'must be an array' }]);
    expect(problemsOf(ListIdentifiersRequestSchema, { filter: ['ok', 7, 'ok', false] })).toEqual([
      { field: 'filter[1]', message: 'must be a string' },
      { field: 'filter[3]', message: 'must be a string' },
    ]);
  });

  it('checks a message field is an object, not an array or a string', () => {
    expect(problemsOf(CreateChallengeRequestSchema, { clientInformation: 'x' })).toEqual([{ field: 'clientInformation', message: 'must be an object' }]);
    expect(problemsOf(CreateChallengeRequestSchema, { clientInformation: [] })).toEqual([{ field: 'clientInformation', message: 'must be an object' }]);
  });

  it('limits how deep a free-form object nests', () => {
    const nest = (levels: number): Record<string, unknown> => {
      let v: Record<string, unknown> = { leaf: 1 };
      for (let i = 1; i < levels; i++) v = { n: v };
      return v;
    };
    expect(decodeMessage<CreateChallengeRequest>(CreateChallengeRequestSchema, { challengeMetadata: nest(32) }).challengeMetadata).toEqual(nest(32));
    expect(problemsOf(CreateChallengeRequestSchema, { challengeMetadata: nest(33) })).toEqual([
      { field: 'challengeMetadata', message: 'nests deeper than 32 levels' },
    ]);
    // Arrays count as levels too.
    let arr: unknown = 1;
    for (let i = 0; i < 40; i++) arr = [arr];
    expect(problemsOf(CreateChallengeRequestSchema, { challengeMetadata: { a: arr } })).toEqual([
      { field: 'challengeMetadata', message: 'nests deeper than 32 levels' },
    ]);
  });

  it('limits how deep a recursive message nests', () => {
    const chain = (levels: number): Record<string, unknown> => {
      let v: Record<string, unknown> = { flag: true };
      for (let i = 0; i < levels; i++) v = { child: v };
      return v;
    };
    expect(() => decodeMessage(Kitchen, chain(31))).not.toThrow();
    const problems = problemsOf(Kitchen, chain(34));
    expect(problems).toHaveLength(1);
    expect(problems[0].message).toBe('nests deeper than 32 levels');
    expect(problems[0].field).toBe(Array(33).fill('child').join('.'));
  });

  it('checks the other scalar kinds, maps, enums and nested lists of messages', () => {
    expect(
      problemsOf(Kitchen, {
        u: -1,
        d: 'NaN-ish',
        b: 5,
        e: 1,
        m: { a: 1, b: 'two', c: 2 ** 31 },
        ri: [1, '2', 3.5],
        children: [{ flag: 'no' }, 'x', { big: 1.25 }],
        s: 2 ** 31,
        ub: -1.5,
      }),
    ).toEqual([
      { field: 'u', message: 'must be a non-negative integer (32-bit)' },
      { field: 'd', message: 'must be a number' },
      { field: 'b', message: 'must be a string' },
      { field: 'e', message: 'must be a string' },
      { field: 'm.b', message: 'must be an integer (32-bit)' },
      { field: 'm.c', message: 'must be an integer (32-bit)' },
      { field: 'ri[1]', message: 'must be an integer' },
      { field: 'ri[2]', message: 'must be an integer' },
      { field: 'children[0].flag', message: 'must be a boolean' },
      { field: 'children[1]', message: 'must be an object' },
      { field: 'children[2].big', message: 'must be an integer' },
      { field: 's', message: 'must be an integer (32-bit)' },
      { field: 'ub', message: 'must be an integer' },
    ]);
    expect(problemsOf(Kitchen, { m: [1] })).toEqual([{ field: 'm', message: 'must be an object' }]);
    expect(problemsOf(Kitchen, { d: Number.POSITIVE_INFINITY })).toEqual([{ field: 'd', message: 'must be a number' }]);
    expect(problemsOf(Kitchen, { u: 2 ** 32 })).toEqual([{ field: 'u', message: 'must be a non-negative integer (32-bit)' }]);
  });

  it('accepts well-typed values of those kinds', () => {
    const msg = decodeMessage<Record<string, unknown> & { $typeName: string }>(Kitchen, {
      u: 2 ** 32 - 1,
      d: 1.5,
      b: 'AQID',
      e: 'COLOR_RED',
      m: { a: 1 },
      ri: [1, 2],
      flag: false,
      big: -3,
    });
    expect(msg.u).toBe(2 ** 32 - 1);
    expect(msg.b).toEqual(new Uint8Array([1, 2, 3]));
    expect(msg.e).toBe(1);
    expect(msg.m).toEqual({ a: 1 });
    expect(msg.ri).toEqual([1n, 2n]);
    expect(msg.big).toBe(-3n);
  });

  it('turns what only the protobuf parser catches into a JsonShapeError as well', () => {
    // A well-typed string that is no valid base64.
    expect(() => decodeMessage(Kitchen, { b: 'a' })).toThrow(JsonShapeError);
  });

  it('ignores proto field names: only the interface JSON names are read (and type-checked)', () => {
    const msg = decodeMessage<CreateChallengeRequest>(CreateChallengeRequestSchema, { user_id: 5, lifetime_seconds: '77', userID: 'usr-1' });
    expect(msg.userId).toBe('usr-1');
    expect(msg.lifetimeSeconds).toBeUndefined();
    expect(() => decodeMessage(CreateChallengeRequestSchema, { lifetimeSeconds: '77' })).toThrow(JsonShapeError);
  });
});

describe('encodeMessage', () => {
  it('renders int64 as a JSON number and the interface names', () => {
    const json = encodeMessage(
      ChallengeSchema,
      create(ChallengeSchema, {
        challengeId: 'cha-1',
        type: 'email_otp',
        identifierValue: 'a@example.com',
        value: '123456',
        expires: 1_893_456_000n,
        status: 'pending',
      }),
    );
    expect(json).toEqual({ challengeID: 'cha-1', type: 'email_otp', identifierValue: 'a@example.com', value: '123456', expires: 1_893_456_000, status: 'pending' });
    expect(typeof json.expires).toBe('number');
    expect(JSON.stringify(json)).toContain('"expires":1893456000');
  });

  it('always renders implicit fields, with their zero values', () => {
    expect(encodeMessage(ChallengeSchema, create(ChallengeSchema))).toEqual({
      challengeID: '',
      type: '',
      identifierValue: '',
      // value is optional (only B1 returns it), so an unset one is left out.
      expires: 0,
      status: '',
    });
    expect(encodeMessage(GetSessionConfigResponseSchema, create(GetSessionConfigResponseSchema))).toEqual({ useSessionManagement: false, frontendApiUrl: '' });
    expect(encodeMessage(GetJwksResponseSchema, create(GetJwksResponseSchema))).toEqual({ keys: [] });
    expect(encodeMessage(DeleteUserChallengesResponseSchema, create(DeleteUserChallengesResponseSchema, { deleted: 3n }))).toEqual({ deleted: 3 });
  });

  it('omits unset optional fields but renders set ones, even when empty', () => {
    expect(encodeMessage(UserSchema, create(UserSchema, { userId: 'usr-1', status: 'active' }))).toEqual({ userID: 'usr-1', status: 'active' });
    expect(encodeMessage(UserSchema, create(UserSchema, { userId: 'usr-1', status: 'active', fullName: '' }))).toEqual({
      userID: 'usr-1',
      status: 'active',
      fullName: '',
    });
  });

  it('converts int64 inside nested messages and lists of messages', () => {
    const json = encodeMessage(CreateChallengeResponseSchema, create(CreateChallengeResponseSchema, { challenge: { challengeId: 'cha-2', expires: 42n } }));
    expect(json).toEqual({ challenge: { challengeID: 'cha-2', type: '', identifierValue: '', expires: 42, status: '' } });

    const kitchen = encodeMessage(
      Kitchen,
      (create as (desc: DescMessage, init: unknown) => Message)(Kitchen, {
        ri: [1n, -2n],
        big: 7n,
        ub: 9n,
        child: { big: 8n, children: [{ big: 10n }] },
        children: [{ big: 11n }, { ri: [12n] }],
      }),
    );
    expect(kitchen.ri).toEqual([1, -2]);
    expect(kitchen.big).toBe(7);
    expect(kitchen.ub).toBe(9);
    expect((kitchen.child as Record<string, unknown>).big).toBe(8);
    expect(((kitchen.child as Record<string, unknown>).children as Record<string, unknown>[])[0].big).toBe(10);
    expect((kitchen.children as Record<string, unknown>[]).map((c) => [c.big, c.ri])).toEqual([
      [11, []],
      [0, [12]],
    ]);
  });

  it('converts int64 inside map values, scalar and message', () => {
    const json = encodeMessage(
      Kitchen,
      (create as (desc: DescMessage, init: unknown) => Message)(Kitchen, { counts: { a: 5n, b: -6n }, kids: { x: { big: 13n } } }),
    );
    expect(json.counts).toEqual({ a: 5, b: -6 });
    expect((json.kids as Record<string, Record<string, unknown>>).x.big).toBe(13);
  });

  it('renders lists and nested implicit fields of a list response', () => {
    const json = encodeMessage(
      ListIdentifiersResponseSchema,
      create(ListIdentifiersResponseSchema, {
        identifiers: [{ identifierId: 'ide-1', type: 'email', value: 'a@example.com', status: 'verified', userId: 'usr-1' }],
        paging: { page: 1, totalPages: 1, totalItems: 1 },
      }),
    );
    expect(json).toEqual({
      identifiers: [{ identifierID: 'ide-1', type: 'email', value: 'a@example.com', status: 'verified', userID: 'usr-1' }],
      paging: { page: 1, totalPages: 1, totalItems: 1 },
    });
    expect(encodeMessage(ListIdentifiersResponseSchema, create(ListIdentifiersResponseSchema, { paging: {} }))).toEqual({
      identifiers: [],
      paging: { page: 0, totalPages: 0, totalItems: 0 },
    });
  });

  it('keeps free-form objects as objects', () => {
    const req = create(CreateChallengeRequestSchema, { challengeMetadata: { a: 1, b: { c: [true, 'x'] } } });
    expect(encodeMessage(CreateChallengeRequestSchema, req).challengeMetadata).toEqual({ a: 1, b: { c: [true, 'x'] } });
  });

  it('writes a json_oneof member under the oneof\'s name, where the oneof is declared, in nested and listed messages too', () => {
    const block = create(BlockBodySchema, {
      block: 'email-verify',
      authType: 'signup',
      data: { case: 'emailVerify', value: { blockType: 'email-verify', verificationMethod: 'email-otp', identifier: 'a@example.com', retryNotBefore: 1764300000n } },
      alternatives: [{ block: 'passkey-appended', authType: 'signup', data: { case: 'passkeyAppended', value: { blockType: 'passkey-appended' } } }],
      error: { code: 'invalid_code', message: 'no' },
    });
    const json = encodeMessage(ProcessResponseSchema, create(ProcessResponseSchema, { blockBody: block }));
    // toJson would write emailVerify after continueOnOtherDevice (by field number); the interface writes data third.
    expect(JSON.stringify(json)).toBe(
      JSON.stringify({
        blockBody: {
          block: 'email-verify',
          authType: 'signup',
          data: { blockType: 'email-verify', verificationMethod: 'email-otp', identifier: 'a@example.com', retryNotBefore: 1764300000, alternativeVerificationMethods: [], isPostLoginVerification: false },
          alternatives: [{ block: 'passkey-appended', authType: 'signup', data: { blockType: 'passkey-appended' }, alternatives: [] }],
          error: { code: 'invalid_code', message: 'no' },
        },
      }),
    );
  });

  it('leaves out an unset json_oneof, as any unset member', () => {
    expect(encodeMessage(BlockBodySchema, create(BlockBodySchema, { block: 'completed' }))).toEqual({ block: 'completed', authType: '', alternatives: [] });
  });
});

describe('queryToJson', () => {
  const q = (s: string) => new URLSearchParams(s);

  it('maps `filter[]` and `filter` to the repeated field, in order', () => {
    expect(queryToJson(ListIdentifiersRequestSchema, q('filter[]=identifierType:eq:email&filter[]=status:eq:verified'))).toEqual({
      filter: ['identifierType:eq:email', 'status:eq:verified'],
    });
    expect(queryToJson(ListIdentifiersRequestSchema, q('filter=a'))).toEqual({ filter: ['a'] });
    const both = queryToJson(ListIdentifiersRequestSchema, q('filter[]=a&filter=b&filter[]=c')).filter as string[];
    expect([...both].sort()).toEqual(['a', 'b', 'c']);
  });

  it('converts numbers by the field type and maps JSON names only', () => {
    expect(queryToJson(ListIdentifiersRequestSchema, q('page=2&pageSize=50&sort=created:desc&page_size=7&unknown=1'))).toEqual({
      page: 2,
      pageSize: 50,
      sort: 'created:desc',
    });
    expect(queryToJson(ListIdentifiersRequestSchema, q('page=-3'))).toEqual({ page: -3 });
  });

  it('keeps the last value of a repeated non-list parameter', () => {
    expect(queryToJson(ListIdentifiersRequestSchema, q('sort=a&sort=b'))).toEqual({ sort: 'b' });
  });

  it('decodes URL escapes in values', () => {
    expect(queryToJson(ListIdentifiersRequestSchema, q('filter[]=identifierValue:eq:a%2Bb%40example.com'))).toEqual({
      filter: ['identifierValue:eq:a+b@example.com'],
    });
  });

  it('rejects values that do not fit the field type, naming the fields', () => {
    try {
      queryToJson(ListIdentifiersRequestSchema, q('page=abc&pageSize=1e3&sort=ok'));
      throw new Error('expected a JsonShapeError');
    } catch (err) {
      expect(err).toBeInstanceOf(JsonShapeError);
      expect((err as JsonShapeError).problems).toEqual([
        { field: 'page', message: 'has an invalid value for its type' },
        { field: 'pageSize', message: 'has an invalid value for its type' },
      ]);
    }
    expect(() => queryToJson(ListIdentifiersRequestSchema, q('page='))).toThrow(JsonShapeError);
  });

  it('leaves integrality to decodeMessage, which names the field', () => {
    const json = queryToJson(ListIdentifiersRequestSchema, q('page=1.5'));
    expect(json).toEqual({ page: 1.5 });
    expect(problemsOf(ListIdentifiersRequestSchema, json)).toEqual([{ field: 'page', message: 'must be an integer (32-bit)' }]);
  });

  it('builds a message through decodeMessage', () => {
    const msg = decodeMessage<ListIdentifiersRequest>(ListIdentifiersRequestSchema, queryToJson(ListIdentifiersRequestSchema, q('filter[]=a&page=3')));
    expect(msg.filter).toEqual(['a']);
    expect(msg.page).toBe(3);
    expect(msg.pageSize).toBeUndefined();
  });

  it('converts booleans strictly and int64 to numbers; ignores message fields', () => {
    expect(queryToJson(Kitchen, q('flag=true&big=12&ri=1&ri[]=2&child=x'))).toEqual({ flag: true, big: 12, ri: [1, 2] });
    expect(queryToJson(Kitchen, q('flag=false'))).toEqual({ flag: false });
    expect(() => queryToJson(Kitchen, q('flag=1'))).toThrow(JsonShapeError);
    expect(() => queryToJson(Kitchen, q('ri[]=1&ri[]=x'))).toThrow(JsonShapeError);
  });
});
