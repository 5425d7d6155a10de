/**
 * Rotates a project's signing key without breaking any token:
 *
 * 1. The new key is published at once but signs only from `activatesAt` = now + 15 minutes on.
 *    Verifiers cache the JWKS (the gateway a minute; the published Node SDK ten minutes, and it
 *    will not refetch sooner for an unknown kid), so a token naming a key they have not fetched
 *    yet would be refused; after the lead time every cache holds the new key.
 * 2. Each older key still in use gets `retiresAt` = the new key's activation plus the longest
 *    lifetime a token it signs until then can have, and stays in the JWKS until that time
 *    (listPublicJwks). Keys past their retiresAt are dropped here, at the next rotation.
 *
 * The client key is the exception: it never expires, so it is issued again, signed with the new
 * key right away (only our gateway verifies client keys, and it refetches the JWKS on an unknown
 * kid). The old copy works until the old key retires; deploy the new one before then.
 */
import { failedPrecondition } from '../../../../runtime/errors.js';
import { MAX_INVITATION_DAYS, PROCESS_LIFETIME_SECONDS } from '../../shared/domain/limits.js';
import { getProject } from './getProject.js';
import { issueClientKey } from './issueClientKey.js';
import type { ProjectDeps } from './projectDeps.js';
import { MAX_SESSION_LIFETIME_SECONDS } from './sessionLifetimes.js';
import { MAX_PASSKEY_DATA_LIFETIME_SECONDS } from './signPasskeyData.js';
import type { SigningKeyRecord } from '../store/projects.js';
import { filterLiveSigningKeys, generateSigningKey } from './signingKeys.js';

/** Publication before use: longer than any JWKS cache of a verifier we know (Node SDK: 10 minutes). */
export const KEY_ACTIVATION_DELAY_SECONDS = 900;

/**
 * The longest lifetime of any token a project key signs: session tokens (the largest lifetime a
 * project may configure, since the setting may have been lowered after tokens were issued),
 * process tokens, signedPasskeyData and invitations. Invitations (up to a year) dominate.
 */
export function keyRetirementSeconds(): number {
  return Math.max(MAX_SESSION_LIFETIME_SECONDS, ...Object.values(PROCESS_LIFETIME_SECONDS), MAX_PASSKEY_DATA_LIFETIME_SECONDS, MAX_INVITATION_DAYS * 86_400);
}

export interface RotatedSigningKey {
  projectId: string;
  /** The new key's ID: every token signed from activatesAt on names it. */
  kid: string;
  activatesAt: Date;
  /** The project's client key, signed with the new key. */
  clientKey: string;
  /** Older keys still published, and when each one leaves the JWKS. */
  retiring: Array<{ kid: string; retiresAt: Date }>;
}

/** Concurrent rotations of one project are rare (an operator command); a few retries settle them. */
const MAX_ATTEMPTS = 3;

export async function rotateSigningKey(deps: Pick<ProjectDeps, 'projects' | 'masterKey' | 'now'>, projectId: string): Promise<RotatedSigningKey> {
  for (let attempt = 1; attempt <= MAX_ATTEMPTS; attempt++) {
    const project = await getProject(deps, projectId);
    const now = deps.now();
    const activatesAt = new Date(now.getTime() + KEY_ACTIVATION_DELAY_SECONDS * 1000);
    const retiresAt = new Date(activatesAt.getTime() + keyRetirementSeconds() * 1000);
    // Retired keys are dropped; a key already retiring keeps its date (it stops signing no later than before).
    const kept: SigningKeyRecord[] = filterLiveSigningKeys(project.signingKeys, now).map((k) => (k.retiresAt ? k : { ...k, retiresAt }));
    const fresh: SigningKeyRecord = { ...(await generateSigningKey(deps.masterKey, project._id, now)), activatesAt };
    const updated = await deps.projects.replaceSigningKeys(
      project._id,
      project.signingKeys.map((k) => k.kid),
      [...kept, fresh],
      now,
    );
    // Guard: another rotation changed the keys since we read them; start over from the new state.
    if (!updated) continue;
    return {
      projectId: updated._id,
      kid: fresh.kid,
      activatesAt,
      clientKey: await issueClientKey(deps, updated._id, { kid: fresh.kid }),
      retiring: kept.map((k) => ({ kid: k.kid, retiresAt: k.retiresAt! })),
    };
  }
  await getProject(deps, projectId);
  throw failedPrecondition('concurrent_key_rotation', `the signing keys of project ${projectId} changed during ${MAX_ATTEMPTS} rotation attempts; try again`);
}
