import type { ProjectRecord, PublicJwk } from '../store/projects.js';
import { filterLiveSigningKeys } from './filterLiveSigningKeys.js';

/**
 * The project's JWKS: the public halves of its signing keys that are not retired at `now` (a
 * replaced key stays until the last token it signed has expired).
 */
export function listPublicJwks(project: ProjectRecord, now: Date = new Date()): PublicJwk[] {
  return filterLiveSigningKeys(project.signingKeys, now).map((k) => ({ ...k.publicJwk }));
}
