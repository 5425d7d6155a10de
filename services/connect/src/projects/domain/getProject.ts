import { notFound } from '../../../../runtime/errors.js';
import type { ProjectRecord, UserVerification } from '../store/projects.js';
import { cloneDetectionOf } from './cloneDetection.js';
import { eventRetentionDaysOf } from './eventRetention.js';
import type { ProjectDeps } from './projectDeps.js';
import { DEFAULT_MAX_CHALLENGE_ATTEMPTS, isProjectId } from './projectRules.js';
import type { PublicJwk } from '../store/projects.js';
import { filterLiveSigningKeys } from './filterLiveSigningKeys.js';

/** The project, or not_found `project_not_found` (also for IDs that cannot be project IDs). */
export async function getProject(deps: Pick<ProjectDeps, 'projects'>, projectId: string): Promise<ProjectRecord> {
  const project = isProjectId(projectId) ? await deps.projects.find(projectId) : null;
  if (!project) throw notFound('project_not_found', `project ${projectId} does not exist`);
  return project;
}

/**
 * The project's JWKS: the public halves of its signing keys that are not retired at `now` (a
 * replaced key stays until the last token it signed has expired).
 */
export function publicJwks(project: ProjectRecord, now: Date = new Date()): PublicJwk[] {
  return filterLiveSigningKeys(project.signingKeys, now).map((k) => ({ ...k.publicJwk }));
}

/** What is public about a project: enough for the gateway to authenticate its frontend calls. */
export interface ProjectPublicInfo {
  projectId: string;
  frontendApiUrl: string;
  origins: string[];
  keys: PublicJwk[];
  rpId: string;
  rpName: string;
  userVerification: UserVerification;
  appName: string;
  challengeDelivery: string;
  maxChallengeAttempts: number;
  emailLinkUrl: string;
  /** Days the ceremony service keeps the project's ceremony events. */
  eventRetentionDays: number;
  /** The clone detection policy (cloneDetection.ts). */
  cloneDetection: string;
}

export async function getProjectPublicInfo(deps: Pick<ProjectDeps, 'projects' | 'now'>, projectId: string): Promise<ProjectPublicInfo> {
  const project = await getProject(deps, projectId);
  return {
    projectId: project._id,
    frontendApiUrl: project.frontendApiUrl,
    origins: [...project.origins],
    keys: publicJwks(project, deps.now()),
    rpId: project.rpId,
    rpName: project.rpName,
    userVerification: project.userVerification ?? 'required',
    appName: project.appName,
    challengeDelivery: project.challengeDelivery ?? 'app',
    maxChallengeAttempts: project.maxChallengeAttempts ?? DEFAULT_MAX_CHALLENGE_ATTEMPTS,
    emailLinkUrl: project.emailLinkUrl ?? '',
    eventRetentionDays: eventRetentionDaysOf(project),
    cloneDetection: cloneDetectionOf(project),
  };
}
