/**
 * JSON Schemas of protobuf messages as the gateway's codec (jsonCodec.ts) reads and writes them:
 * json_name property names, int64 as integers, google.protobuf.Struct as free-form objects.
 *
 * A message gets one schema per direction, because "required" differs:
 * - request: what protovalidate demands (`required`, or rules that reject an unset implicit field),
 *   with the rules' constraints (enum from `in`, pattern, lengths, ranges);
 * - response: what encodeMessage always emits (implicit-presence scalars, lists and maps), while
 *   `optional` scalars and message fields may be missing.
 * Messages reached in both directions get a request variant named `<Name>Input`.
 */
import { getOption, hasOption, ScalarType, type DescEnum, type DescField, type DescMessage, type DescOneof } from '@bufbuild/protobuf';
import { FeatureSet_FieldPresence } from '@bufbuild/protobuf/wkt';
import { oneof as oneofRulesOption, type FieldRules } from '@bufbuild/protovalidate/gen/buf/validate/validate_pb.js';
import { jsonOneofOf } from '../jsonCodec.js';
import { schemaRef, type JsonSchema } from './jsonSchema.js';
import { listKeywords, mapKeywords, requiredInRequest, rulesOf, valueKeywords } from './validationRules.js';

export type Direction = 'request' | 'response';

const INT32 = new Set([ScalarType.INT32, ScalarType.SINT32, ScalarType.SFIXED32]);
const UINT32 = new Set([ScalarType.UINT32, ScalarType.FIXED32]);
const INT64 = new Set([ScalarType.INT64, ScalarType.SINT64, ScalarType.SFIXED64]);
const UINT64 = new Set([ScalarType.UINT64, ScalarType.FIXED64]);

export function scalarSchema(type: ScalarType): JsonSchema {
  if (type === ScalarType.STRING) return { type: 'string' };
  if (type === ScalarType.BYTES) return { type: 'string', contentEncoding: 'base64' };
  if (type === ScalarType.BOOL) return { type: 'boolean' };
  if (INT32.has(type)) return { type: 'integer', format: 'int32' };
  if (UINT32.has(type)) return { type: 'integer', minimum: 0, maximum: 4294967295 };
  // The interface sends int64 as JSON numbers (exact up to 2^53), never as strings.
  if (INT64.has(type)) return { type: 'integer', format: 'int64' };
  if (UINT64.has(type)) return { type: 'integer', format: 'int64', minimum: 0 };
  return { type: 'number', format: type === ScalarType.FLOAT ? 'float' : 'double' };
}

function enumSchema(desc: DescEnum): JsonSchema {
  return { type: 'string', enum: desc.values.map((v) => v.name) };
}

/** Well-known types the codec passes through in their protobuf JSON form. */
function wellKnownSchema(desc: DescMessage): JsonSchema | undefined {
  switch (desc.typeName) {
    case 'google.protobuf.Struct':
      return { type: 'object', additionalProperties: true, description: 'Free-form JSON object.' };
    case 'google.protobuf.Value':
      return { description: 'Any JSON value.' };
    case 'google.protobuf.ListValue':
      return { type: 'array', items: {} };
    case 'google.protobuf.Empty':
      return { type: 'object' };
    case 'google.protobuf.Timestamp':
      return { type: 'string', format: 'date-time' };
    case 'google.protobuf.Duration':
    case 'google.protobuf.FieldMask':
    case 'google.protobuf.Int64Value':
    case 'google.protobuf.UInt64Value':
    case 'google.protobuf.StringValue':
    case 'google.protobuf.BytesValue':
      return { type: 'string' };
    case 'google.protobuf.Int32Value':
    case 'google.protobuf.UInt32Value':
      return { type: 'integer' };
    case 'google.protobuf.DoubleValue':
    case 'google.protobuf.FloatValue':
      return { type: 'number' };
    case 'google.protobuf.BoolValue':
      return { type: 'boolean' };
    case 'google.protobuf.Any':
      return { type: 'object', required: ['@type'], properties: { '@type': { type: 'string' } } };
    default:
      return undefined;
  }
}

/** Messages of our own reachable through the fields of `desc` (not `desc` itself). */
function collectNested(desc: DescMessage, into: Set<DescMessage>): void {
  for (const field of desc.fields) {
    const nested = field.fieldKind === 'message' ? field.message : field.fieldKind === 'list' || field.fieldKind === 'map' ? (field.message ?? undefined) : undefined;
    if (!nested || wellKnownSchema(nested) || into.has(nested)) continue;
    into.add(nested);
    collectNested(nested, into);
  }
}

/** Builds and names the component schemas of one document. */
export class SchemaRegistry {
  readonly schemas: Record<string, JsonSchema> = {};
  private readonly names = new Map<string, string>();
  private readonly reached = { request: new Set<DescMessage>(), response: new Set<DescMessage>() };
  private readonly shortNameOwners = new Map<string, Set<string>>();
  /** Messages that are members of a json_oneof with a discriminator: the JSON name of the field that names them. */
  private readonly discriminators = new Map<DescMessage, string>();

  /**
   * @param requestRoots messages whose fields are request bodies or parameters (the RPC inputs)
   * @param responseRoots messages rendered as response bodies
   */
  constructor(requestRoots: DescMessage[], responseRoots: DescMessage[], reserved: string[]) {
    for (const root of requestRoots) collectNested(root, this.reached.request);
    for (const root of responseRoots) {
      this.reached.response.add(root);
      collectNested(root, this.reached.response);
    }
    for (const name of reserved) this.shortNameOwners.set(name, new Set(['(reserved)']));
    for (const desc of [...this.reached.request, ...this.reached.response]) {
      const owners = this.shortNameOwners.get(desc.name) ?? new Set<string>();
      owners.add(desc.typeName);
      this.shortNameOwners.set(desc.name, owners);
    }
  }

  private componentName(desc: DescMessage, direction: Direction): string {
    const unique = this.shortNameOwners.get(desc.name)?.size === 1;
    const base = unique ? desc.name : desc.typeName;
    const both = this.reached.request.has(desc) && this.reached.response.has(desc);
    return direction === 'request' && both ? `${base}Input` : base;
  }

  /** A schema for a message-typed value: a well-known type inline, our messages by reference. */
  messageSchema(desc: DescMessage, direction: Direction): JsonSchema {
    const known = wellKnownSchema(desc);
    if (known) return known;
    const key = `${direction} ${desc.typeName}`;
    let name = this.names.get(key);
    if (!name) {
      name = this.componentName(desc, direction);
      this.names.set(key, name);
      // Registered before it is built, so recursive messages refer to themselves.
      this.schemas[name] = {};
      this.schemas[name] = this.objectSchema(desc, direction);
    }
    return schemaRef(name);
  }

  /**
   * The object schema of a message's fields, leaving out `exclude` (JSON names, e.g. path
   * parameters), in declaration order; a json_oneof is one property, where the oneof is declared.
   */
  objectSchema(desc: DescMessage, direction: Direction, exclude: ReadonlySet<string> = new Set()): JsonSchema {
    const properties: Record<string, JsonSchema> = {};
    const required: string[] = [];
    for (const member of desc.members) {
      const named = member.kind === 'oneof' ? jsonOneofOf(member) : undefined;
      if (member.kind === 'oneof' && named) {
        if (direction === 'request') throw new Error(`${desc.typeName}: the json_oneof ${member.name} is for response messages only (the codec does not read it)`);
        properties[named.name] = this.oneofSchema(member, named.discriminator);
        if (hasOption(member, oneofRulesOption) && getOption(member, oneofRulesOption).required) required.push(named.name);
        continue;
      }
      for (const field of member.kind === 'oneof' ? member.fields : [member]) {
        if (exclude.has(field.jsonName)) continue;
        properties[field.jsonName] = this.fieldSchema(field, direction);
        // The field that tells the members of a json_oneof apart: its rule's values are documented (the discriminator's mapping).
        if (direction === 'response' && this.discriminators.get(desc) === field.jsonName) Object.assign(properties[field.jsonName], valueKeywords(rulesOf(field)));
        if (direction === 'request' ? requiredInRequest(field, rulesOf(field)) : alwaysEmitted(field)) required.push(field.jsonName);
      }
    }
    return {
      type: 'object',
      description: `Protobuf message \`${desc.typeName}\`.`,
      properties,
      ...(required.length > 0 ? { required } : {}),
    };
  }

  /**
   * A json_oneof (response only): one of its members' messages, told apart by `discriminator` (the
   * JSON name of a field each member's message has, with a `const` or `in` rule naming its values).
   * Members of the same message are listed once.
   */
  private oneofSchema(oneof: DescOneof, discriminator: string): JsonSchema {
    const messages = [...new Set(oneof.fields.map((f) => f.message))];
    if (messages.some((m) => m === undefined)) throw new Error(`${oneof.parent.typeName}.${oneof.name}: a json_oneof has message members only`);
    for (const m of messages as DescMessage[]) {
      if (!discriminator) continue;
      const field = m.fields.find((f) => f.jsonName === discriminator);
      const keywords = field ? valueKeywords(rulesOf(field)) : {};
      if (keywords.const === undefined && keywords.enum === undefined) throw new Error(`${m.typeName}: the discriminator ${discriminator} of ${oneof.parent.typeName}.${oneof.name} needs a const or in rule`);
      this.discriminators.set(m, discriminator);
    }
    return {
      type: 'object',
      description: `Oneof \`${oneof.name}\` of \`${oneof.parent.typeName}\`: the object of the member that is set${discriminator ? `, named by its \`${discriminator}\`` : ''}.`,
      oneOf: (messages as DescMessage[]).map((m) => this.messageSchema(m, 'response')),
      ...(discriminator ? { discriminator: { propertyName: discriminator } } : {}),
    };
  }

  /** The schema of one field's JSON value. Rules are applied to requests only (services validate requests). */
  fieldSchema(field: DescField, direction: Direction): JsonSchema {
    const rules = direction === 'request' ? rulesOf(field) : undefined;
    switch (field.fieldKind) {
      case 'scalar':
        return { ...scalarSchema(field.scalar), ...valueKeywords(rules) };
      case 'enum':
        return { ...enumSchema(field.enum), ...valueKeywords(rules) };
      case 'message':
        return this.messageSchema(field.message, direction);
      case 'list': {
        const { keywords, items } = listKeywords(rules);
        return { type: 'array', items: this.valueSchema(field, items, direction), ...keywords };
      }
      case 'map': {
        const { keywords, values } = mapKeywords(rules);
        return { type: 'object', additionalProperties: this.valueSchema(field, values, direction), ...keywords };
      }
    }
  }

  /** One item of a list, or one value of a map. */
  private valueSchema(field: DescField & { fieldKind: 'list' | 'map' }, rules: FieldRules | undefined, direction: Direction): JsonSchema {
    const kind = field.fieldKind === 'list' ? field.listKind : field.mapKind;
    if (kind === 'message' && field.message) return this.messageSchema(field.message, direction);
    if (kind === 'enum' && field.enum) return { ...enumSchema(field.enum), ...valueKeywords(rules) };
    return { ...scalarSchema(field.scalar ?? ScalarType.STRING), ...valueKeywords(rules) };
  }
}

/** Fields encodeMessage always writes (toJson with alwaysEmitImplicit): implicit presence, lists and maps. */
export function alwaysEmitted(field: DescField): boolean {
  if (field.fieldKind === 'list' || field.fieldKind === 'map') return true;
  if (field.fieldKind === 'message' || field.oneof !== undefined) return false;
  return field.presence === FeatureSet_FieldPresence.IMPLICIT;
}
