/**
 * The internal call policy follows the code: each process's direct calls are exactly the RPCs its
 * client adapters call (read from the sources that hold a typed `Client<typeof XService>`), the
 * gateway may call exactly what it routes plus those, and ceremony and challenge may not call
 * connect's user, identifier or flow RPCs.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { buildRouteTable } from '../../../gateway/src/routeTable.js';
import { callPolicyFor, DIRECT_CALLS, INTERNAL_CALLERS, INTERNAL_SERVICES, internalServiceOf, procedureOf, SERVED, type InternalCaller } from '../internalCallPolicy.js';

const ROOT = join(import.meta.dirname, '..', '..', '..');
const SOURCE_DIRS: Record<InternalCaller, string> = { gateway: 'gateway/src', ceremony: 'services/ceremony/src', challenge: 'services/challenge/src', connect: 'services/connect/src' };

function tsFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return name === 'test' ? [] : tsFiles(path);
    return name.endsWith('.ts') && !name.endsWith('.test.ts') ? [path] : [];
  });
}

const allServices = Object.values(SERVED).flat();

/** The procedures the files call through typed clients: `name: Client<typeof XService>` and then `name.method(`. */
function callsIn(files: string[]): Set<string> {
  const calls = new Set<string>();
  for (const file of files) {
    const text = readFileSync(file, 'utf8');
    for (const [, receiver, serviceName] of text.matchAll(/(\w+)\??:\s*Client<typeof (\w+)>/g)) {
      const service = allServices.find((s) => s.name === serviceName);
      if (!service) throw new Error(`${file}: ${serviceName} is no served service`);
      for (const [, local] of text.matchAll(new RegExp(`\\b${receiver}\\.(\\w+)\\(`, 'g'))) {
        const method = service.methods.find((m) => m.localName === local);
        if (!method) throw new Error(`${relative(ROOT, file)}: ${receiver}.${local} is no RPC of ${serviceName}`);
        calls.add(procedureOf(method));
      }
    }
  }
  return calls;
}

/** A caller's own sources plus the shared runtime modules with typed clients that they import. */
function sourcesOf(caller: InternalCaller): string[] {
  const own = tsFiles(join(ROOT, SOURCE_DIRS[caller]));
  const ownText = own.map((f) => readFileSync(f, 'utf8')).join('\n');
  const runtime = tsFiles(join(ROOT, 'services/runtime')).filter((f) => /Client<typeof/.test(readFileSync(f, 'utf8')));
  return [...own, ...runtime.filter((f) => ownText.includes(`runtime/${relative(join(ROOT, 'services/runtime'), f).replace(/\.ts$/, '.js')}'`))];
}

describe('the internal call policy', () => {
  it('lists for each process exactly the RPCs its code calls', () => {
    for (const caller of INTERNAL_CALLERS) {
      expect({ caller, calls: [...callsIn(sourcesOf(caller))].sort() }).toEqual({ caller, calls: DIRECT_CALLS[caller].map(procedureOf).sort() });
    }
  });

  it('lets the gateway call exactly the RPCs it routes, plus its direct calls', () => {
    const routed = buildRouteTable(allServices).map((r) => procedureOf(r.method));
    for (const target of INTERNAL_SERVICES) {
      const expected = new Set([...routed, ...DIRECT_CALLS.gateway.map(procedureOf)].filter((p) => SERVED[target].some((s) => p.startsWith(`${s.typeName}/`))));
      expect(callPolicyFor(target).get('gateway')).toEqual(expected);
    }
    expect(callPolicyFor('connect').get('gateway')?.has('passkeyauth.connect.v1.UserService/DeleteUser')).toBe(true);
  });

  it('gives ceremony and challenge only the project and user look-ups they need of connect, and no process anything of itself', () => {
    const connect = callPolicyFor('connect');
    expect([...(connect.get('challenge') ?? [])].sort()).toEqual(['passkeyauth.connect.v1.ProjectService/GetProjectPublicInfo', 'passkeyauth.connect.v1.UserService/GetUser']);
    expect([...(connect.get('ceremony') ?? [])].sort()).toEqual([
      'passkeyauth.connect.v1.ProjectService/GetProjectPublicInfo',
      'passkeyauth.connect.v1.ProjectService/SignPasskeyData',
      'passkeyauth.connect.v1.UserService/GetUser',
    ]);
    expect([...(callPolicyFor('challenge').get('ceremony') ?? [])]).toEqual(['passkeyauth.challenge.v1.ChallengeService/SendNotification']);
    expect(callPolicyFor('ceremony').has('challenge')).toBe(false);
    for (const s of INTERNAL_SERVICES) expect(callPolicyFor(s).has(s)).toBe(false);
    for (const caller of INTERNAL_CALLERS) for (const m of DIRECT_CALLS[caller]) expect(internalServiceOf(m.parent)).not.toBe(caller);
  });
});
