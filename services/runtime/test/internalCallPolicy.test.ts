/**
 * The internal call policy follows the code: each process's direct calls are exactly the RPCs its
 * client adapters call (read from the sources that hold a typed `Client<typeof XService>`), the
 * gateway may call exactly what it routes plus those, and ceremony and challenge may not call
 * connect's user, identifier or flow RPCs.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import type { DescService } from '@bufbuild/protobuf';
import { beforeAll, describe, expect, it } from 'vitest';
import { discoverServices } from '../../../gateway/src/discoverServices.js';
import { buildRouteTable } from '../../../gateway/src/routeTable.js';
import { calleesOf, callPolicyFor, DIRECT_CALLS, INTERNAL_CALLERS, INTERNAL_SERVICES, internalServiceOf, procedureOf, type InternalCaller } from '../internalCallPolicy.js';

const ROOT = join(import.meta.dirname, '..', '..', '..');
const SOURCE_DIRS: Record<InternalCaller, string> = { gateway: 'gateway/src', ceremony: 'services/ceremony/src', challenge: 'services/challenge/src', connect: 'services/connect/src', events: 'services/events/src' };

function tsFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return name === 'test' ? [] : tsFiles(path);
    return name.endsWith('.ts') && !name.endsWith('.test.ts') ? [path] : [];
  });
}

/** Every RPC service of the stack (what the gateway discovers under gen/). */
let allServices: DescService[] = [];
beforeAll(async () => {
  allServices = (await discoverServices()).filter((s) => s.file.proto.package.startsWith('passkeyauth.'));
});
const methodsOf = (target: string) => allServices.filter((s) => internalServiceOf(s) === target).flatMap((s) => s.methods);
/** The procedures `caller` may call at `target`, asked of the policy for each of the target's RPCs. */
const allowedAt = (target: (typeof INTERNAL_SERVICES)[number], caller: string) =>
  methodsOf(target)
    .filter((m) => callPolicyFor(target).allows(caller, m))
    .map(procedureOf)
    .sort();

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
      const expected = [...new Set([...routed, ...DIRECT_CALLS.gateway.map(procedureOf)])].filter((p) => methodsOf(target).some((m) => procedureOf(m) === p)).sort();
      expect(expected.length).toBeGreaterThan(0);
      expect(allowedAt(target, 'gateway')).toEqual(expected);
    }
    expect(allowedAt('connect', 'gateway')).toContain('passkeyauth.connect.v1.UserService/DeleteUser');
    // A routed RPC of another service is not the gateway's to call here (each service checks its own).
    const deleteUser = methodsOf('connect').find((m) => m.name === 'DeleteUser');
    expect(deleteUser && callPolicyFor('ceremony').allows('gateway', deleteUser)).toBe(false);
  });

  it('gives ceremony and challenge only the project and user look-ups they need of connect, and no process anything of itself', () => {
    expect(allowedAt('connect', 'challenge')).toEqual(['passkeyauth.connect.v1.ProjectService/GetProjectPublicInfo', 'passkeyauth.connect.v1.UserService/GetUser']);
    expect(allowedAt('connect', 'ceremony')).toEqual([
      'passkeyauth.connect.v1.ProjectService/GetProjectPublicInfo',
      'passkeyauth.connect.v1.ProjectService/SignPasskeyData',
      'passkeyauth.connect.v1.UserService/GetUser',
    ]);
    expect(allowedAt('challenge', 'ceremony')).toEqual(['passkeyauth.challenge.v1.ChallengeService/SendNotification']);
    expect(allowedAt('ceremony', 'challenge')).toEqual([]);
    expect(allowedAt('connect', 'intruder')).toEqual([]);
    for (const s of INTERNAL_SERVICES) expect(allowedAt(s, s)).toEqual([]);
    expect(calleesOf('challenge')).toEqual(['connect', 'events']);
    expect(calleesOf('ceremony')).toEqual(['challenge', 'connect', 'events']);
    expect(calleesOf('connect')).toEqual(['ceremony', 'challenge', 'events']);
    // The outbox relays hand events over and ask what is subscribed; nothing else of the events service is theirs, and it calls no one.
    const producerCalls = ['passkeyauth.events.v1.EventService/GetSubscribedEventTypes', 'passkeyauth.events.v1.EventService/PublishEvents'];
    expect(allowedAt('events', 'connect')).toEqual(producerCalls);
    expect(allowedAt('events', 'ceremony')).toEqual(producerCalls);
    expect(allowedAt('events', 'challenge')).toEqual(producerCalls);
    expect(calleesOf('events')).toEqual([]);
  });
});
