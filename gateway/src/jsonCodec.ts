/**
 * The one place where the interface's JSON rules live: exact camelCase names (the protos'
 * json_name), int64 as JSON numbers, free-form objects as objects, unset optional fields omitted,
 * unknown request fields ignored, wrong JSON types rejected naming the field, and a oneof marked
 * json_oneof written as one property (a block's `data`).
 */
import { fromJson, getOption, hasOption, toJson, type DescField, type DescMessage, type DescOneof, type JsonValue, type Message } from '@bufbuild/protobuf';
import { ScalarType } from '@bufbuild/protobuf';
import { json_oneof as jsonOneofOption, type JsonOneof } from '../../gen/passkeyauth/gateway/v1/http_pb.js';
import { FREE_FORM_LIMITS, measureFreeForm } from './measureFreeForm.js';

export interface TypeProblem {
  field: string;
  message: string;
}

/** The messages of measureFreeForm and of the depth bound: problems of size, not of type. */
const BOUND_PROBLEM = /^(must be at most|must hold at most|nests deeper)/;

/** Thrown when a request's JSON does not fit the message; carries every problem found. */
export class JsonShapeError extends Error {
  /** One line for errorRsp's details: what kind of problems these are. */
  readonly summary: string;

  constructor(readonly problems: TypeProblem[]) {
    super(problems.map((p) => `${p.field}: ${p.message}`).join('; '));
    this.summary = problems.every((p) => BOUND_PROBLEM.test(p.message)) ? 'the request has fields over their size limits' : 'the request has fields of the wrong type';
  }
}

const STRUCT = 'google.protobuf.Struct';
const VALUE = 'google.protobuf.Value';
const LIST_VALUE = 'google.protobuf.ListValue';
const FREE_FORM = new Set([STRUCT, VALUE, LIST_VALUE]);
/** Messages nest at most this deep, so a hostile body cannot recurse the gateway to death. */
const MAX_DEPTH = FREE_FORM_LIMITS.maxDepth;

function isObject(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

/** Checks JSON against a message and builds the message; throws JsonShapeError listing bad fields. */
export function decodeMessage<T extends Message>(desc: DescMessage, json: Record<string, unknown>): T {
  const problems: TypeProblem[] = [];
  checkMessage(desc, json, '', problems, 0);
  if (problems.length) throw new JsonShapeError(problems);
  try {
    // Only the interface's JSON names reach fromJson: it would also accept proto field names
    // (user_id), which would bypass the checks above.
    return fromJson(desc, onlyJsonNames(desc, json) as JsonValue, { ignoreUnknownFields: true }) as T;
  } catch (err) {
    throw new JsonShapeError([{ field: '', message: (err as Error).message }]);
  }
}

function onlyJsonNames(desc: DescMessage, json: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const field of desc.fields) {
    if (!Object.prototype.hasOwnProperty.call(json, field.jsonName)) continue;
    const v = json[field.jsonName];
    const nested = field.fieldKind === 'message' && !field.message.typeName.startsWith('google.protobuf.') ? field.message : null;
    const nestedList = field.fieldKind === 'list' && field.listKind === 'message' && !field.message.typeName.startsWith('google.protobuf.') ? field.message : null;
    if (nested && isObject(v)) out[field.jsonName] = onlyJsonNames(nested, v);
    else if (nestedList && Array.isArray(v)) out[field.jsonName] = v.map((item) => (isObject(item) ? onlyJsonNames(nestedList, item) : item));
    else out[field.jsonName] = v;
  }
  return out;
}

function checkMessage(desc: DescMessage, json: Record<string, unknown>, prefix: string, problems: TypeProblem[], depth: number): void {
  for (const field of desc.fields) {
    if (!Object.prototype.hasOwnProperty.call(json, field.jsonName)) continue;
    const value = json[field.jsonName];
    // JSON null means "not set", as in the protobuf JSON mapping.
    if (value === null) continue;
    checkField(field, value, prefix ? `${prefix}.${field.jsonName}` : field.jsonName, problems, depth);
  }
}

function checkField(field: DescField, value: unknown, path: string, problems: TypeProblem[], depth: number): void {
  switch (field.fieldKind) {
    case 'scalar':
      return checkScalar(field.scalar, value, path, problems);
    case 'enum':
      if (typeof value !== 'string') problems.push({ field: path, message: 'must be a string' });
      return;
    case 'message':
      return checkMessageValue(field.message, value, path, problems, depth + 1);
    case 'list': {
      if (!Array.isArray(value)) return void problems.push({ field: path, message: 'must be an array' });
      value.forEach((item, i) => {
        const p = `${path}[${i}]`;
        if (field.listKind === 'scalar') checkScalar(field.scalar, item, p, problems);
        else if (field.listKind === 'message') checkMessageValue(field.message, item, p, problems, depth + 1);
        else if (typeof item !== 'string') problems.push({ field: p, message: 'must be a string' });
      });
      return;
    }
    case 'map': {
      if (!isObject(value)) return void problems.push({ field: path, message: 'must be an object' });
      for (const [k, item] of Object.entries(value)) {
        const p = `${path}.${k}`;
        if (field.mapKind === 'scalar') checkScalar(field.scalar, item, p, problems);
        else if (field.mapKind === 'message') checkMessageValue(field.message, item, p, problems, depth + 1);
      }
      return;
    }
  }
}

function checkMessageValue(desc: DescMessage, value: unknown, path: string, problems: TypeProblem[], depth: number): void {
  if (depth > MAX_DEPTH) return void problems.push({ field: path, message: `nests deeper than ${MAX_DEPTH} levels` });
  if (FREE_FORM.has(desc.typeName)) {
    if (desc.typeName === STRUCT && !isObject(value)) return void problems.push({ field: path, message: 'must be an object' });
    if (desc.typeName === LIST_VALUE && !Array.isArray(value)) return void problems.push({ field: path, message: 'must be an array' });
    // Bounded here, before fromJson converts it: conversion costs time per element.
    const outOfBounds = measureFreeForm(value);
    if (outOfBounds) problems.push({ field: path, message: outOfBounds });
    return;
  }
  if (!isObject(value)) return void problems.push({ field: path, message: 'must be an object' });
  checkMessage(desc, value, path, problems, depth);
}

const INT32_TYPES = new Set([ScalarType.INT32, ScalarType.SINT32, ScalarType.SFIXED32]);
const UINT32_TYPES = new Set([ScalarType.UINT32, ScalarType.FIXED32]);
const INT64_TYPES = new Set([ScalarType.INT64, ScalarType.SINT64, ScalarType.SFIXED64, ScalarType.UINT64, ScalarType.FIXED64]);

function checkScalar(type: ScalarType, value: unknown, path: string, problems: TypeProblem[]): void {
  const fail = (message: string) => problems.push({ field: path, message });
  if (type === ScalarType.STRING || type === ScalarType.BYTES) {
    if (typeof value !== 'string') fail('must be a string');
  } else if (type === ScalarType.BOOL) {
    if (typeof value !== 'boolean') fail('must be a boolean');
  } else if (INT32_TYPES.has(type)) {
    if (typeof value !== 'number' || !Number.isInteger(value) || value < -(2 ** 31) || value >= 2 ** 31) fail('must be an integer (32-bit)');
  } else if (UINT32_TYPES.has(type)) {
    if (typeof value !== 'number' || !Number.isInteger(value) || value < 0 || value >= 2 ** 32) fail('must be a non-negative integer (32-bit)');
  } else if (INT64_TYPES.has(type)) {
    // int64 travels as a JSON number in this interface; beyond 2^53 a JSON number is not exact.
    if (typeof value !== 'number' || !Number.isSafeInteger(value)) fail('must be an integer');
  } else if (typeof value !== 'number' || !Number.isFinite(value)) {
    fail('must be a number');
  }
}

/** Turns a response message into the interface's JSON (int64 as numbers, implicit fields always present). */
export function encodeMessage(desc: DescMessage, message: Message): Record<string, unknown> {
  const json = toJson(desc, message, { alwaysEmitImplicit: true }) as Record<string, unknown>;
  int64AsNumbers(desc, json);
  if (hasJsonOneofBelow(desc)) writeJsonOneofs(desc, json);
  return json;
}

/** How the gateway writes a oneof as one property (passkeyauth.gateway.v1.json_oneof), if it does. */
export function jsonOneofOf(oneof: DescOneof): JsonOneof | undefined {
  return hasOption(oneof, jsonOneofOption) ? getOption(oneof, jsonOneofOption) : undefined;
}

/** Our own messages a field holds (singular, list items or map values); none for scalars and google.protobuf types. */
function nestedMessage(field: DescField): DescMessage | undefined {
  const m = field.fieldKind === 'message' ? field.message : field.fieldKind === 'list' || field.fieldKind === 'map' ? field.message : undefined;
  return m && !m.typeName.startsWith('google.protobuf.') ? m : undefined;
}

/** Per response message: whether a json_oneof is reachable from it (most answers have none and skip the walk). */
const jsonOneofBelow = new WeakMap<DescMessage, boolean>();

function hasJsonOneofBelow(root: DescMessage): boolean {
  let found = jsonOneofBelow.get(root);
  if (found === undefined) {
    const seen = new Set<DescMessage>([root]);
    const queue = [root];
    found = false;
    for (let desc = queue.pop(); desc && !found; desc = queue.pop()) {
      found = desc.oneofs.some((o) => jsonOneofOf(o) !== undefined);
      for (const field of desc.fields) {
        const m = nestedMessage(field);
        if (m && !seen.has(m)) {
          seen.add(m);
          queue.push(m);
        }
      }
    }
    jsonOneofBelow.set(root, found);
  }
  return found;
}

/**
 * Writes the set member of each json_oneof under the oneof's JSON name, in place. A message that
 * has one is written with its fields in declaration order, so the property sits where the proto
 * declares the oneof (toJson orders by field number, and the members are numbered after the
 * fields that follow it).
 */
function writeJsonOneofs(desc: DescMessage, json: Record<string, unknown>): void {
  for (const field of desc.fields) {
    const m = nestedMessage(field);
    const v = json[field.jsonName];
    if (!m || v === undefined || v === null) continue;
    if (field.fieldKind === 'list') for (const item of v as Record<string, unknown>[]) writeJsonOneofs(m, item);
    else if (field.fieldKind === 'map') for (const item of Object.values(v as Record<string, Record<string, unknown>>)) writeJsonOneofs(m, item);
    else writeJsonOneofs(m, v as Record<string, unknown>);
  }
  if (!desc.oneofs.some((o) => jsonOneofOf(o) !== undefined)) return;
  const ordered: [string, unknown][] = [];
  for (const member of desc.members) {
    const name = member.kind === 'oneof' ? jsonOneofOf(member)?.name : undefined;
    for (const field of member.kind === 'oneof' ? member.fields : [member]) {
      if (Object.prototype.hasOwnProperty.call(json, field.jsonName)) ordered.push([name ?? field.jsonName, json[field.jsonName]]);
    }
  }
  for (const key of Object.keys(json)) delete json[key];
  for (const [key, value] of ordered) json[key] = value;
}

function int64AsNumbers(desc: DescMessage, json: Record<string, unknown>): void {
  for (const field of desc.fields) {
    const v = json[field.jsonName];
    if (v === undefined || v === null) continue;
    if (field.fieldKind === 'scalar' && INT64_TYPES.has(field.scalar)) json[field.jsonName] = Number(v);
    else if (field.fieldKind === 'list' && field.listKind === 'scalar' && INT64_TYPES.has(field.scalar)) json[field.jsonName] = (v as string[]).map(Number);
    else if (field.fieldKind === 'list' && field.listKind === 'message' && !field.message.typeName.startsWith('google.protobuf.')) {
      for (const item of v as Record<string, unknown>[]) int64AsNumbers(field.message, item);
    } else if (field.fieldKind === 'message' && !field.message.typeName.startsWith('google.protobuf.')) {
      int64AsNumbers(field.message, v as Record<string, unknown>);
    } else if (field.fieldKind === 'map' && field.mapKind === 'scalar' && INT64_TYPES.has(field.scalar)) {
      const map = v as Record<string, string>;
      for (const k of Object.keys(map)) (map as Record<string, unknown>)[k] = Number(map[k]);
    } else if (field.fieldKind === 'map' && field.mapKind === 'message' && !field.message.typeName.startsWith('google.protobuf.')) {
      for (const item of Object.values(v as Record<string, Record<string, unknown>>)) int64AsNumbers(field.message, item);
    }
  }
}

/**
 * Query parameters (GET/DELETE) as JSON: each name maps to the field with that JSON name
 * ("filter[]" to the repeated "filter"), values converted to the field's type.
 */
export function queryToJson(desc: DescMessage, query: URLSearchParams): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  const problems: TypeProblem[] = [];
  for (const field of desc.fields) {
    const repeated = field.fieldKind === 'list';
    const values = repeated ? [...query.getAll(field.jsonName), ...query.getAll(`${field.jsonName}[]`)] : query.getAll(field.jsonName);
    if (values.length === 0) continue;
    const scalar = field.fieldKind === 'scalar' ? field.scalar : field.fieldKind === 'list' && field.listKind === 'scalar' ? field.scalar : null;
    if (scalar === null) continue;
    const converted = values.map((raw) => convertQueryValue(scalar, raw));
    if (converted.some((c) => c === undefined)) {
      problems.push({ field: field.jsonName, message: `has an invalid value for its type` });
      continue;
    }
    out[field.jsonName] = repeated ? converted : converted[converted.length - 1];
  }
  if (problems.length) throw new JsonShapeError(problems);
  return out;
}

function convertQueryValue(type: ScalarType, raw: string): unknown {
  if (type === ScalarType.STRING) return raw;
  if (type === ScalarType.BOOL) return raw === 'true' ? true : raw === 'false' ? false : undefined;
  if (type === ScalarType.BYTES) return raw;
  if (!/^-?[0-9]+(\.[0-9]+)?$/.test(raw)) return undefined;
  return Number(raw);
}
