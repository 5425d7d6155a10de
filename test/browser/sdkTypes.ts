/**
 * The response types the web SDK declares for itself (its generated OpenAPI client,
 * @corbado/web-core/dist/api/v2/api.d.ts), read at test time, and a checker that names every
 * required field that is missing, every value of the wrong JSON type and every enum value the SDK
 * does not know. Fields the SDK does not declare are reported separately (they are harmless).
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';

interface Field {
  required: boolean;
  type: string;
}

export interface SdkTypes {
  interfaces: Map<string, Map<string, Field>>;
  enums: Map<string, string[]>;
}

/** `root`: the web-core package directory to read (default: the one this directory resolves, 3.x). */
export function loadSdkTypes(root = dirname(createRequire(import.meta.url).resolve('@corbado/web-core/package.json'))): SdkTypes {
  const src = readFileSync(join(root, 'dist', 'api', 'v2', 'api.d.ts'), 'utf8');
  const interfaces = new Map<string, Map<string, Field>>();
  for (const m of src.matchAll(/export interface (\w+) \{([\s\S]*?)\n\}/g)) {
    const fields = new Map<string, Field>();
    for (const f of m[2]!.matchAll(/^\s+'(\w+)'(\??): ([^;]+);/gm)) fields.set(f[1]!, { required: f[2] !== '?', type: f[3]!.trim() });
    interfaces.set(m[1]!, fields);
  }
  const enums = new Map<string, string[]>();
  for (const m of src.matchAll(/export declare const (\w+): \{([\s\S]*?)\};/g)) {
    enums.set(m[1]!, [...m[2]!.matchAll(/: "([^"]*)"/g)].map((v) => v[1]!));
  }
  if (!interfaces.has('ConnectLoginInitRsp')) throw new Error('could not read the SDK response types from api.d.ts');
  return { interfaces, enums };
}

export interface ShapeReport {
  problems: string[];
  extras: string[];
}

/** Checks a JSON value against an SDK type name (interface, enum, primitive, Array<…>). */
export function checkShape(types: SdkTypes, value: unknown, type: string, path = type, report: ShapeReport = { problems: [], extras: [] }): ShapeReport {
  const t = type.trim();
  const arr = /^Array<(.+)>$/.exec(t);
  if (arr) {
    if (!Array.isArray(value)) report.problems.push(`${path}: expected an array, got ${JSON.stringify(value)}`);
    else value.forEach((v, i) => checkShape(types, v, arr[1]!, `${path}[${i}]`, report));
    return report;
  }
  const iface = types.interfaces.get(t);
  if (iface) {
    if (typeof value !== 'object' || value === null || Array.isArray(value)) {
      report.problems.push(`${path}: expected an object (${t}), got ${JSON.stringify(value)}`);
      return report;
    }
    const obj = value as Record<string, unknown>;
    for (const [name, field] of iface) {
      if (!(name in obj) || obj[name] === undefined) {
        if (field.required) report.problems.push(`${path}.${name}: required by ${t}, missing`);
      } else if (obj[name] === null) {
        if (field.required && !field.type.includes('null')) report.problems.push(`${path}.${name}: required by ${t}, null`);
      } else {
        checkShape(types, obj[name], field.type, `${path}.${name}`, report);
      }
    }
    for (const name of Object.keys(obj)) if (!iface.has(name)) report.extras.push(`${path}.${name}`);
    return report;
  }
  const values = types.enums.get(t);
  if (values) {
    if (!values.includes(value as string)) report.problems.push(`${path}: ${JSON.stringify(value)} is not one of ${t} ${JSON.stringify(values)}`);
    return report;
  }
  const primitive: Record<string, string> = { string: 'string', number: 'number', boolean: 'boolean' };
  if (primitive[t] && typeof value !== primitive[t]) report.problems.push(`${path}: expected ${t}, got ${JSON.stringify(value)}`);
  return report;
}

/** Frontend API path → the SDK's response type. */
export const CONNECT_RESPONSE_TYPES: Record<string, string> = {
  '/v2/connect/login/init': 'ConnectLoginInitRsp',
  '/v2/connect/login/start': 'ConnectLoginStartRsp',
  '/v2/connect/login/finish': 'ConnectLoginFinishRsp',
  '/v2/connect/append/init': 'ConnectAppendInitRsp',
  '/v2/connect/append/start': 'ConnectAppendStartRsp',
  '/v2/connect/append/finish': 'ConnectAppendFinishRsp',
  '/v2/connect/manage/init': 'ConnectManageInitRsp',
  '/v2/connect/manage/list': 'ConnectManageListRsp',
  '/v2/connect/manage/delete': 'ConnectManageDeleteRsp',
};
