/**
 * Verifies a token this service signed for a project (ES256 against the project's published
 * keys, issuer and audience as signToken sets them) and checks its `kind`. Returns null for any
 * token that is not valid: callers decide what an invalid token means in their flow.
 */
import { createLocalJWKSet, jwtVerify, type JWTPayload } from 'jose';
import { getProject } from './getProject.js';
import { listPublicJwks } from './signingKeys.js';
import type { ProjectDeps } from './projectDeps.js';

export async function verifyProjectToken(
  deps: Pick<ProjectDeps, 'projects' | 'now'>,
  projectId: string,
  token: string,
  kind: string,
): Promise<JWTPayload | null> {
  const project = await getProject(deps, projectId);
  const keys = createLocalJWKSet({ keys: listPublicJwks(project, deps.now()) });
  try {
    const { payload } = await jwtVerify(token, keys, {
      algorithms: ['ES256'],
      issuer: project.frontendApiUrl,
      audience: project._id,
      currentDate: deps.now(),
    });
    return payload.kind === kind ? payload : null;
  } catch {
    return null;
  }
}
