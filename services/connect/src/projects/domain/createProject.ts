import { randomBytes } from 'node:crypto';
import { newId } from '../../../../runtime/ids.js';
import type { ProjectRecord } from '../store/projects.js';
import { generateApiSecret, hashApiSecret } from './apiSecrets.js';
import { issueClientKey } from './issueClientKey.js';
import { checkCloneDetection } from './cloneDetection.js';
import { checkEventRetentionDays } from './eventRetention.js';
import { checkSelfServiceFlows, DEFAULT_SELF_SERVICE_FLOWS } from './selfServiceFlows.js';
import type { ProjectDeps } from './projectDeps.js';
import { checkBaseUrl, frontendApiUrlFor, normalizeEnvironment, normalizeName, normalizeOrigins, normalizeRpId, normalizeUserVerification, normalizeChallengeDelivery, normalizeMaxChallengeAttempts, normalizeEmailLinkUrl } from './projectRules.js';
import type { Environment } from '../store/projects.js';
import { generateSigningKey } from './signingKeys.js';

export interface CreateProjectInput {
  name: string;
  rpId: string;
  origins: string[];
  /** Shown by authenticators; defaults to the name. */
  rpName?: string;
  /** Shown in emails and UIs; defaults to the name. */
  appName?: string;
  environment?: Environment | string;
  /** WebAuthn user verification policy; defaults to "required". */
  userVerification?: string;
  /** Who delivers B1 challenges: "app" (default) or "service". */
  challengeDelivery?: string;
  /** Wrong values a challenge accepts before it expires (default 5). */
  maxChallengeAttempts?: number;
  /** Where email links point when a challenge names no linkUrl (on one of the origins). */
  emailLinkUrl?: string;
  /** Days the project's ceremony events are kept (default 90). */
  eventRetentionDays?: number;
  /** Clone detection policy (default block). */
  cloneDetection?: string;
  /** Whether /v2/auth/* (self-service sign-up/login) is served: "enabled" or "disabled" (the default). */
  selfServiceFlows?: string;
}

/** The created project with the secrets that are shown once: the API secret and the client key. */
export interface CreatedProject {
  project: ProjectRecord;
  apiSecret: string;
  clientKey: string;
}

/**
 * Creates a project: validates the settings, generates its first API secret (stored as a hash
 * only) and signing key (stored sealed), stores it in one insert, then issues its client key.
 */
export async function createProject(deps: ProjectDeps, input: CreateProjectInput): Promise<CreatedProject> {
  const name = normalizeName('name', input.name);
  const rpId = normalizeRpId(input.rpId);
  const origins = normalizeOrigins(input.origins);
  const rpName = input.rpName === undefined ? name : normalizeName('rpName', input.rpName);
  const appName = input.appName === undefined ? name : normalizeName('appName', input.appName);
  const environment = normalizeEnvironment(input.environment);
  const userVerification = normalizeUserVerification(input.userVerification);
  const challengeDelivery = normalizeChallengeDelivery(input.challengeDelivery);
  const maxChallengeAttempts = normalizeMaxChallengeAttempts(input.maxChallengeAttempts);
  const emailLinkUrl = normalizeEmailLinkUrl(input.emailLinkUrl, origins);
  const eventRetentionDays = checkEventRetentionDays(input.eventRetentionDays);
  const cloneDetection = checkCloneDetection(input.cloneDetection);
  // Stored explicitly, so the record says what it serves whatever a later default becomes.
  const selfServiceFlows = checkSelfServiceFlows(input.selfServiceFlows) ?? DEFAULT_SELF_SERVICE_FLOWS;
  const projectId = newId('pro');
  const frontendApiUrl = frontendApiUrlFor(deps.urls.frontendApiUrl, projectId);
  const backendApiUrl = checkBaseUrl('BACKEND_API_URL', deps.urls.backendApiUrl);
  const now = deps.now();
  const apiSecret = generateApiSecret();
  const record: ProjectRecord = {
    _id: projectId,
    name,
    rpId,
    rpName,
    origins,
    appName,
    environment,
    frontendApiUrl,
    backendApiUrl,
    userVerification,
    challengeDelivery,
    maxChallengeAttempts,
    ...(emailLinkUrl ? { emailLinkUrl } : {}),
    ...(eventRetentionDays !== undefined ? { eventRetentionDays } : {}),
    ...(cloneDetection !== undefined ? { cloneDetection } : {}),
    selfServiceFlows,
    apiSecrets: [{ id: randomBytes(8).toString('hex'), hash: hashApiSecret(apiSecret), createdAt: now }],
    signingKeys: [await generateSigningKey(deps.masterKey, projectId, now)],
    clientKeyId: randomBytes(16).toString('base64url'),
    createdAt: now,
    updatedAt: now,
  };
  await deps.projects.insert(record);
  return { project: record, apiSecret, clientKey: await issueClientKey(deps, projectId) };
}
