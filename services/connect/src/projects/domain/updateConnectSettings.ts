import { invalidArgument, notFound } from '../../../../runtime/errors.js';
import type { ConnectRollout, ProjectRecord } from '../store/projects.js';
import type { ProjectDeps } from './projectDeps.js';

export const CONNECT_ROLLOUTS: readonly ConnectRollout[] = ['everyone', 'invited', 'nobody'];
const FLAG = /^([A-Za-z0-9._-]{1,64})=(.{0,256})$/s;

/** Parses "key=value" flag arguments (the project's connect flags). */
export function parseConnectFlags(args: readonly string[]): Record<string, string> {
  const flags: Record<string, string> = {};
  for (const arg of args) {
    const m = FLAG.exec(arg);
    if (!m) throw invalidArgument('validation_error', `flag "${arg}" must be key=value (key: 1-64 of A-Z a-z 0-9 . _ -, value: at most 256 characters)`);
    flags[m[1]] = m[2];
  }
  return flags;
}

/** Sets who may use the connect flows and the flags every connect init answer carries. */
export async function updateConnectSettings(
  deps: Pick<ProjectDeps, 'projects' | 'now'>,
  projectId: string,
  settings: { rollout?: string; flags?: Record<string, string> },
): Promise<ProjectRecord> {
  if (settings.rollout !== undefined && !(CONNECT_ROLLOUTS as readonly string[]).includes(settings.rollout)) {
    throw invalidArgument('validation_error', `rollout must be one of ${CONNECT_ROLLOUTS.join(', ')}, got "${settings.rollout}"`);
  }
  const updated = await deps.projects.updateConnectSettings(
    projectId,
    { ...(settings.rollout !== undefined ? { connectRollout: settings.rollout as ConnectRollout } : {}), ...(settings.flags ? { connectFlags: settings.flags } : {}) },
    deps.now(),
  );
  if (!updated) throw notFound('project_not_found', `project ${projectId} does not exist`);
  return updated;
}
