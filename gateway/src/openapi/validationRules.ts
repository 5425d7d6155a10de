/**
 * The protovalidate (`buf.validate.field`) rules of a request field as JSON Schema keywords, and
 * whether they make the field required. Only the rules with a plain JSON Schema equivalent are
 * translated; CEL expressions and the rest stay with the services, which enforce all of them.
 */
import { getOption, hasOption, isFieldSet, type DescField, type DescMessage, type Message } from '@bufbuild/protobuf';
import { FeatureSet_FieldPresence } from '@bufbuild/protobuf/wkt';
import {
  field as fieldRulesOption,
  file_buf_validate_validate,
  Ignore,
  type FieldRules,
  type MapRules,
  type RepeatedRules,
  type StringRules,
} from '@bufbuild/protovalidate/gen/buf/validate/validate_pb.js';
import type { JsonSchema } from './jsonSchema.js';

const RULE_MESSAGES = new Map<string, DescMessage>(file_buf_validate_validate.messages.map((m) => [m.typeName, m]));

/** Whether a rule field (proto2, explicit presence) was written in the proto, even as 0 or "". */
function isSet(rules: Message, localName: string): boolean {
  const field = RULE_MESSAGES.get(rules.$typeName)?.fields.find((f) => f.localName === localName);
  return field !== undefined && isFieldSet(rules as never, field);
}

/** The field's rules, or undefined when it has none (or ignores them always). */
export function rulesOf(field: DescField): FieldRules | undefined {
  if (!hasOption(field, fieldRulesOption)) return undefined;
  const rules = getOption(field, fieldRulesOption);
  return rules.ignore === Ignore.ALWAYS ? undefined : rules;
}

/** Scalars and enums without `optional`, lists and maps: unset means the zero value, not "absent". */
function hasImplicitPresence(field: DescField): boolean {
  if (field.fieldKind === 'list' || field.fieldKind === 'map') return true;
  if (field.fieldKind === 'message' || field.oneof !== undefined) return false;
  return field.presence === FeatureSet_FieldPresence.IMPLICIT;
}

/**
 * A request field is required when its rules say `required`, or when it has implicit presence
 * and its rules reject the zero value (protovalidate checks an unset implicit field as "" or 0,
 * so `min_len: 1`, a pattern or an `in` list without "" make it mandatory).
 */
export function requiredInRequest(field: DescField, rules: FieldRules | undefined): boolean {
  if (!rules) return false;
  if (rules.required) return true;
  if (rules.ignore !== Ignore.UNSPECIFIED || !hasImplicitPresence(field)) return false;
  return rejectsZeroValue(rules);
}

function rejectsZeroValue(rules: FieldRules): boolean {
  const t = rules.type;
  switch (t.case) {
    case 'string':
      return stringRejects(t.value, '');
    case 'bool':
      return isSet(t.value, 'const') && t.value.const;
    case 'repeated':
      return t.value.minItems > 0n;
    case 'map':
      return t.value.minPairs > 0n;
    case undefined:
      return false;
    default:
      return 'lessThan' in t.value ? numberRejectsZero(t.value as NumberRules) : false;
  }
}

function stringRejects(r: StringRules, value: string): boolean {
  if (isSet(r, 'const') && r.const !== value) return true;
  if (isSet(r, 'len') && BigInt(value.length) !== r.len) return true;
  if (isSet(r, 'minLen') && BigInt(value.length) < r.minLen) return true;
  if (r.pattern && jsPattern(r.pattern)?.test(value) === false) return true;
  if (r.in.length > 0 && !r.in.includes(value)) return true;
  if (r.notIn.includes(value)) return true;
  if (value === '' && (r.prefix || r.suffix || r.contains || r.wellKnown.case !== undefined)) return true;
  return false;
}

/** The shape shared by the int32, int64, uint32, …, float and double rule messages. */
type Num = number | bigint;
interface NumberRules extends Message {
  const: Num;
  lessThan: { case: 'lt' | 'lte'; value: Num } | { case: undefined; value?: undefined };
  greaterThan: { case: 'gt' | 'gte'; value: Num } | { case: undefined; value?: undefined };
  in: Num[];
  notIn: Num[];
}

function numberRejectsZero(r: NumberRules): boolean {
  if (isSet(r, 'const') && Number(r.const) !== 0) return true;
  const lt = r.lessThan;
  if (lt.case === 'lt' && Number(lt.value) <= 0) return true;
  if (lt.case === 'lte' && Number(lt.value) < 0) return true;
  const gt = r.greaterThan;
  if (gt.case === 'gt' && Number(gt.value) >= 0) return true;
  if (gt.case === 'gte' && Number(gt.value) > 0) return true;
  if (r.in.length > 0 && !r.in.some((v) => Number(v) === 0)) return true;
  return r.notIn.some((v) => Number(v) === 0);
}

/** protovalidate patterns are RE2; only those that are also valid ECMAScript (`u` mode) are documented. */
function jsPattern(pattern: string): RegExp | undefined {
  try {
    return new RegExp(pattern, 'u');
  } catch {
    return undefined;
  }
}

const FORMATS: Partial<Record<NonNullable<StringRules['wellKnown']['case']>, string>> = {
  email: 'email',
  hostname: 'hostname',
  ipv4: 'ipv4',
  ipv6: 'ipv6',
  uri: 'uri',
  uriRef: 'uri-reference',
  uuid: 'uuid',
};

function stringKeywords(r: StringRules): JsonSchema {
  const s: JsonSchema = {};
  if (isSet(r, 'const')) s.const = r.const;
  if (isSet(r, 'len')) s.minLength = s.maxLength = Number(r.len);
  if (isSet(r, 'minLen')) s.minLength = Number(r.minLen);
  if (isSet(r, 'maxLen')) s.maxLength = Number(r.maxLen);
  if (r.pattern && jsPattern(r.pattern)) s.pattern = r.pattern;
  if (r.in.length > 0) s.enum = [...r.in];
  if (r.notIn.length > 0) s.not = { enum: [...r.notIn] };
  const format = r.wellKnown.case && r.wellKnown.value === true ? FORMATS[r.wellKnown.case] : undefined;
  if (format) s.format = format;
  return s;
}

function numberKeywords(r: NumberRules): JsonSchema {
  const s: JsonSchema = {};
  if (isSet(r, 'const')) s.const = Number(r.const);
  if (r.lessThan.case === 'lt') s.exclusiveMaximum = Number(r.lessThan.value);
  if (r.lessThan.case === 'lte') s.maximum = Number(r.lessThan.value);
  if (r.greaterThan.case === 'gt') s.exclusiveMinimum = Number(r.greaterThan.value);
  if (r.greaterThan.case === 'gte') s.minimum = Number(r.greaterThan.value);
  if (r.in.length > 0) s.enum = r.in.map(Number);
  if (r.notIn.length > 0) s.not = { enum: r.notIn.map(Number) };
  return s;
}

/** Keywords for one value: a singular field, or one item of a list (the list's `items` rules). */
export function valueKeywords(rules: FieldRules | undefined): JsonSchema {
  const t = rules?.type;
  if (!t || t.case === undefined) return {};
  if (t.case === 'string') return stringKeywords(t.value);
  if (t.case === 'bool') return isSet(t.value, 'const') ? { const: t.value.const } : {};
  if ('lessThan' in t.value) return numberKeywords(t.value as NumberRules);
  return {};
}

/** Keywords of a repeated field, and the rules of its items. */
export function listKeywords(rules: FieldRules | undefined): { keywords: JsonSchema; items: FieldRules | undefined } {
  if (rules?.type.case !== 'repeated') return { keywords: {}, items: undefined };
  const r: RepeatedRules = rules.type.value;
  const keywords: JsonSchema = {};
  if (isSet(r, 'minItems')) keywords.minItems = Number(r.minItems);
  if (isSet(r, 'maxItems')) keywords.maxItems = Number(r.maxItems);
  if (r.unique) keywords.uniqueItems = true;
  return { keywords, items: r.items };
}

/** Keywords of a map field, and the rules of its values. */
export function mapKeywords(rules: FieldRules | undefined): { keywords: JsonSchema; values: FieldRules | undefined } {
  if (rules?.type.case !== 'map') return { keywords: {}, values: undefined };
  const r: MapRules = rules.type.value;
  const keywords: JsonSchema = {};
  if (isSet(r, 'minPairs')) keywords.minProperties = Number(r.minPairs);
  if (isSet(r, 'maxPairs')) keywords.maxProperties = Number(r.maxPairs);
  return { keywords, values: r.values };
}
