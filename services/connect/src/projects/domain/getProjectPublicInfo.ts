import type { PublicJwk, UserVerification } from '../store/projects.js';
import { cloneDetectionOf } from './cloneDetection.js';
import { eventRetentionDaysOf } from './eventRetention.js';
import { getProject } from './getProject.js';
import { listPublicJwks } from './signingKeys.js';
import type { ProjectDeps } from './projectDeps.js';
import { DEFAULT_MAX_CHALLENGE_ATTEMPTS } from './projectRules.js';

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
    keys: listPublicJwks(project, deps.now()),
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
