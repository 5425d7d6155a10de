/**
 * The demo project of `npm start`: the credentials written last time if they still work, else the
 * demo project with a fresh secret. Its own module so start.ts can load it (the connect
 * service's project code and the MongoDB driver) while the store starts.
 */
import { existsSync, readFileSync } from 'node:fs';
import { authenticateBackend } from '../../services/connect/src/projects/domain/authenticateBackend.js';
import { ensureProject, openProjectAdmin, type ProjectCredentials } from '../../services/connect/src/cli/projectAdmin.js';
import { updateSessionSettings } from '../../services/connect/src/sessions/domain/updateSessionSettings.js';
import { parseMasterKey } from '../../services/runtime/masterKey.js';

const DEMO = { name: 'Demo', rpId: 'localhost', origins: ['http://localhost:3000'] };

export async function ensureDemoProject(opts: {
  mongodbUri: string;
  masterKey: string;
  frontendApiUrl: string;
  backendApiUrl: string;
  /** Where the credentials were written last time. */
  savedFile: string;
}): Promise<ProjectCredentials> {
  const admin = await openProjectAdmin({
    mongodbUri: opts.mongodbUri,
    masterKey: parseMasterKey(opts.masterKey),
    urls: { frontendApiUrl: opts.frontendApiUrl, backendApiUrl: opts.backendApiUrl },
  });
  try {
    const project = (await savedIfValid(admin.deps, opts)) ?? (await ensureProject(DEMO, admin.deps));
    // The demo's web-js page: the published web SDKs keep refreshing with the refresh token they
    // got at login and never store a rotated one, so with rotation they would be logged out at
    // their second refresh (docs/web-sdks.md, "Sessions").
    await updateSessionSettings(admin.deps, project.projectID, { refreshTokenRotation: 'keep' });
    return project;
  } finally {
    await admin.close();
  }
}

async function savedIfValid(deps: Parameters<typeof authenticateBackend>[0], opts: { savedFile: string; frontendApiUrl: string }): Promise<ProjectCredentials | undefined> {
  if (!existsSync(opts.savedFile)) return undefined;
  const saved = JSON.parse(readFileSync(opts.savedFile, 'utf8')) as ProjectCredentials;
  const stillValid = await authenticateBackend(deps, saved.projectID, saved.apiSecret).then(
    () => true,
    () => false,
  );
  return stillValid && saved.frontendApiUrl === opts.frontendApiUrl ? saved : undefined;
}
