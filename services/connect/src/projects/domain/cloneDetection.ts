/**
 * What happens to a passkey whose signature counter went backwards, a sign that a copy of its key
 * is in use (a cloned authenticator). Either way the login that showed it is refused, the passkey
 * is flagged (cloneDetectedAt) and a `clone-detected` event is recorded. Per project:
 *   block  (default): the flagged passkey never logs in again; the user registers a new one;
 *   record: only the regressing login is refused, as the counter rule alone would do.
 */
import { invalidArgument } from '../../../../runtime/errors.js';
import type { ProjectRecord } from '../store/projects.js';

export type CloneDetection = 'block' | 'record';
export const CLONE_DETECTION_POLICIES: readonly CloneDetection[] = ['block', 'record'];
export const DEFAULT_CLONE_DETECTION: CloneDetection = 'block';

export function cloneDetectionOf(project: Pick<ProjectRecord, 'cloneDetection'>): CloneDetection {
  return project.cloneDetection ?? DEFAULT_CLONE_DETECTION;
}

/** The policy to store; undefined stays undefined (the default applies). */
export function checkCloneDetection(value: string | undefined): CloneDetection | undefined {
  if (value === undefined) return undefined;
  if (!(CLONE_DETECTION_POLICIES as readonly string[]).includes(value)) {
    throw invalidArgument('validation_error', `cloneDetection must be one of ${CLONE_DETECTION_POLICIES.join(', ')}, got "${value}"`, [
      { field: 'cloneDetection', message: `must be one of ${CLONE_DETECTION_POLICIES.join(', ')}` },
    ]);
  }
  return value as CloneDetection;
}
