/**
 * The client environment of an init call: the one the client's handle names when we issued it,
 * else a new one whose handle goes back to the client (newClientEnvHandle). Handles we did not
 * issue are never adopted, so one client cannot pick another's history by guessing a handle.
 */
import { randomBytes } from 'node:crypto';
import { newId } from '../../../../runtime/ids.js';
import type { ClientEnvRecord, ClientEnvStore } from '../store/clientEnvs.js';

export async function resolveClientEnv(
  deps: { clientEnvs: ClientEnvStore; now: () => Date },
  projectId: string,
  sentHandle: string | undefined,
  visitorId: string | undefined,
): Promise<{ env: ClientEnvRecord; issued: boolean }> {
  const now = deps.now();
  const visitor = visitorId ? visitorId.slice(0, 256) : undefined;
  if (sentHandle) {
    const known = await deps.clientEnvs.touch(projectId, sentHandle, now, visitor);
    if (known) return { env: known, issued: false };
  }
  for (;;) {
    const env: ClientEnvRecord = {
      _id: newId('cle'),
      projectId,
      handle: randomBytes(24).toString('base64url'),
      ...(visitor ? { visitorId: visitor } : {}),
      createdAt: now,
      lastSeenAt: now,
    };
    // 192 random bits do not collide in practice; if they ever do, draw again.
    if ((await deps.clientEnvs.insert(env)) === 'created') return { env, issued: true };
  }
}
