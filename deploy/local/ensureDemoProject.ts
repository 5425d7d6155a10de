/**
 * The demo project of `npm start`: the credentials written last time if they still work, else the
 * demo project with a fresh secret. Its own module so start.ts can load it (the connect
 * service's project code and the MongoDB driver) while the store starts.
 */
import { existsSync, readFileSync } from 'node:fs';
import { authenticateBackend } from '../../services/connect/src/projects/domain/authenticateBackend.js';
import { ensureProject, openProjectAdmin, type ProjectCredentials } from '../../services/connect/src/cli/projectAdmin.js';
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
    if (existsSync(opts.savedFile)) {
      const saved = JSON.parse(readFileSync(opts.savedFile, 'utf8')) as ProjectCredentials;
      const stillValid = await authenticateBackend(admin.deps, saved.projectID, saved.apiSecret).then(
        () => true,
        () => false,
      );
      if (stillValid && saved.frontendApiUrl === opts.frontendApiUrl) return saved;
    }
    return await ensureProject(DEMO, admin.deps);
  } finally {
    await admin.close();
  }
}
