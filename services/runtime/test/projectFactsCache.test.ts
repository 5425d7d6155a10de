import { create } from '@bufbuild/protobuf';
import { Code, ConnectError, createClient, createRouterTransport } from '@connectrpc/connect';
import { describe, expect, it } from 'vitest';
import { GetProjectPublicInfoResponseSchema, ProjectService } from '../../../gen/passkeyauth/connect/v1/project_service_pb.js';
import { HEADERS } from '../context.js';
import { createProjectFactsCache } from '../projectFactsCache.js';

/** A connect service knowing pro-1 only, failing while `down`, counting its calls and headers. */
function fakeProjects() {
  const state = { calls: 0, down: false, headers: [] as Record<string, string | null>[] };
  const transport = createRouterTransport((router) =>
    router.service(ProjectService, {
      getProjectPublicInfo: async (req, ctx) => {
        state.calls++;
        state.headers.push({ project: ctx.requestHeader.get(HEADERS.projectId), request: ctx.requestHeader.get(HEADERS.requestId) });
        if (state.down) throw new ConnectError('connect is down', Code.Unavailable);
        if (req.projectId !== 'pro-1') throw new ConnectError('no such project', Code.NotFound);
        return create(GetProjectPublicInfoResponseSchema, { projectId: req.projectId, appName: `app ${state.calls}` });
      },
    }),
  );
  return { state, client: createClient(ProjectService, transport) };
}

describe('createProjectFactsCache', () => {
  it('keeps what select made of a project for the TTL, then asks again', async () => {
    const { state, client } = fakeProjects();
    let t = 0;
    let selected = 0;
    const cache = createProjectFactsCache(client, { select: (f) => ({ name: f.appName, n: ++selected }), ttlMs: 30_000, maxEntries: 10, now: () => t });
    expect(await cache.get('pro-1')).toEqual({ name: 'app 1', n: 1 });
    t = 29_999;
    expect(await cache.get('pro-1')).toEqual({ name: 'app 1', n: 1 });
    expect([state.calls, selected]).toEqual([1, 1]);
    t = 30_000;
    expect(await cache.get('pro-1')).toEqual({ name: 'app 2', n: 2 });
    expect(state.calls).toBe(2);
  });

  it('remembers a project that does not exist as null, for the TTL too', async () => {
    const { state, client } = fakeProjects();
    const cache = createProjectFactsCache(client, { select: (f) => f.projectId, ttlMs: 30_000, maxEntries: 10 });
    expect(await cache.get('pro-2')).toBeNull();
    expect(await cache.get('pro-2')).toBeNull();
    expect(state.calls).toBe(1);
  });

  it('rejects with the RPC error when connect does not answer, and keeps nothing of it', async () => {
    const { state, client } = fakeProjects();
    const cache = createProjectFactsCache(client, { select: (f) => f.projectId, ttlMs: 30_000, maxEntries: 10 });
    state.down = true;
    await expect(cache.get('pro-1')).rejects.toMatchObject({ code: Code.Unavailable });
    state.down = false;
    expect(await cache.get('pro-1')).toBe('pro-1');
    expect(state.calls).toBe(2);
  });

  it('refreshes only when the last fetch is older than the cooldown', async () => {
    const { state, client } = fakeProjects();
    let t = 0;
    const cache = createProjectFactsCache(client, { select: (f) => f.appName, ttlMs: 60_000, maxEntries: 10, refreshCooldownMs: 10_000, now: () => t });
    expect(await cache.get('pro-1')).toBe('app 1');
    t = 9_999;
    expect(await cache.refresh('pro-1')).toBe('app 1');
    t = 10_000;
    expect(await cache.refresh('pro-1')).toBe('app 2');
    expect(await cache.get('pro-1')).toBe('app 2');
    expect(state.calls).toBe(2);
  });

  it('names the project and the request in the headers, and stays within maxEntries', async () => {
    const { state, client } = fakeProjects();
    const cache = createProjectFactsCache(client, { select: (f) => f.projectId, ttlMs: 30_000, maxEntries: 3 });
    await cache.get('pro-1', 'req-1');
    expect(state.headers[0]).toEqual({ project: 'pro-1', request: 'req-1' });
    for (let i = 2; i < 10; i++) await cache.get(`pro-${i}`);
    expect(cache.size).toBe(3);
  });
});
