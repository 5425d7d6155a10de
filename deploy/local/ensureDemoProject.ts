/**
 * The demo projects of `npm start`: the credentials written last time if they still work, else the
 * demo projects with fresh secrets. Two projects, because a project that signs users in through the
 * connect flows must not serve the self-service sign-up (anyone could sign up there with someone
 * else's address, docs/operations.md "Which flows a project serves"):
 *   "Demo"          self-service on: the sign-up/login, account and web-js pages;
 *   "Demo connect"  self-service off: the connect page and the backend-API page (users the
 *                   application creates and vouches for).
 * Its own module so start.ts can load it (the connect service's project code and the MongoDB
 * driver) while the store starts.
 */
import { existsSync, readFileSync } from 'node:fs';
import { authenticateBackend } from '../../services/connect/src/projects/domain/authenticateBackend.js';
import { ensureProject, openProjectAdmin, type ProjectAdmin, type ProjectCredentials } from '../../services/connect/src/cli/projectAdmin.js';
import { updateSelfServiceFlows } from '../../services/connect/src/projects/domain/updateProjectSettings.js';
import { updateSessionSettings } from '../../services/connect/src/projects/domain/updateSessionSettings.js';
import { parseMasterKey } from '../../services/runtime/masterKey.js';

const DEMO = { name: 'Demo', rpId: 'localhost', origins: ['http://localhost:3000'], selfServiceFlows: 'enabled' };
const DEMO_CONNECT = { name: 'Demo connect', rpId: 'localhost', origins: ['http://localhost:3000'], selfServiceFlows: 'disabled' };

/**
 * What .local/demo-project.json holds: the self-service project's credentials at the top level (the
 * shape `project create` prints, which scripts and the bench read), the connect project's beside them.
 */
export type DemoProjects = ProjectCredentials & { connect: ProjectCredentials };

export async function ensureDemoProject(opts: {
  mongodbUri: string;
  masterKey: string;
  frontendApiUrl: string;
  backendApiUrl: string;
  /** Where the credentials were written last time. */
  savedFile: string;
}): Promise<DemoProjects> {
  const admin = await openProjectAdmin({
    mongodbUri: opts.mongodbUri,
    masterKey: parseMasterKey(opts.masterKey),
    urls: { frontendApiUrl: opts.frontendApiUrl, backendApiUrl: opts.backendApiUrl },
  });
  try {
    const saved = readSaved(opts.savedFile);
    const project = (await savedIfValid(admin, saved, opts)) ?? (await ensureProject(DEMO, admin.deps));
    const connect = (await savedIfValid(admin, saved?.connect, opts)) ?? (await ensureProject(DEMO_CONNECT, admin.deps));
    // Set every start, also on saved projects and on records stored before the setting existed.
    await updateSelfServiceFlows(admin.deps, project.projectID, DEMO.selfServiceFlows);
    await updateSelfServiceFlows(admin.deps, connect.projectID, DEMO_CONNECT.selfServiceFlows);
    // The demo's web-js page: the published web SDKs keep refreshing with the refresh token they
    // got at login and never store a rotated one, so with rotation they would be logged out at
    // their second refresh (docs/web-sdks.md, "Sessions").
    await updateSessionSettings(admin.deps, project.projectID, { refreshTokenRotation: 'keep' });
    return { ...project, connect };
  } finally {
    await admin.close();
  }
}

function readSaved(file: string): Partial<DemoProjects> | undefined {
  if (!existsSync(file)) return undefined;
  try {
    return JSON.parse(readFileSync(file, 'utf8')) as Partial<DemoProjects>;
  } catch {
    return undefined;
  }
}

async function savedIfValid(admin: ProjectAdmin, saved: Partial<ProjectCredentials> | undefined, opts: { frontendApiUrl: string }): Promise<ProjectCredentials | undefined> {
  if (!saved?.projectID || !saved.apiSecret) return undefined;
  const stillValid = await authenticateBackend(admin.deps, saved.projectID, saved.apiSecret).then(
    () => true,
    () => false,
  );
  return stillValid && saved.frontendApiUrl === opts.frontendApiUrl ? (saved as ProjectCredentials) : undefined;
}
