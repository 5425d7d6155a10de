/**
 * `npm start`'s demo projects: one serving the self-service sign-up (the sign-up pages), one with it
 * off (the connect and backend pages), written to one credentials file whose top level keeps the
 * shape the CLI prints. Re-runs reuse the saved projects and set the flows again; a file written
 * before the connect project existed gets it added.
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openTestDatabase, type TestDatabase } from '../../../test/kit/openTestDatabase.js';
import { connectIndexes } from '../../../services/connect/src/store/indexes.js';
import { mongoProjectStore } from '../../../services/connect/src/projects/store/projects.js';
import { ensureDemoProject } from '../ensureDemoProject.js';

let db: TestDatabase;
let dir: string;
const masterKey = randomBytes(32).toString('hex');
const urls = { frontendApiUrl: 'http://localhost:8080', backendApiUrl: 'http://localhost:8081' };

beforeAll(async () => {
  db = await openTestDatabase('demo_project_test', connectIndexes);
  dir = mkdtempSync(join(tmpdir(), 'demo-project-'));
});
afterAll(async () => {
  await db?.close();
  rmSync(dir, { recursive: true, force: true });
});

const settingsOf = async (projectId: string) => {
  const p = await mongoProjectStore(db.store.db).find(projectId);
  return { selfServiceFlows: p?.selfServiceFlows, refreshTokenRotation: p?.refreshTokenRotation };
};

describe('ensureDemoProject', () => {
  it('creates a self-service project and a connect project with self-service off, and reuses them', async () => {
    const savedFile = join(dir, 'demo-project.json');
    const first = await ensureDemoProject({ mongodbUri: db.uri, masterKey, ...urls, savedFile });
    expect(Object.keys(first).sort()).toEqual(['apiSecret', 'backendApiUrl', 'clientKey', 'connect', 'frontendApiUrl', 'origins', 'projectID', 'rpID']);
    expect(first.connect.projectID).not.toBe(first.projectID);
    expect(await settingsOf(first.projectID)).toEqual({ selfServiceFlows: 'enabled', refreshTokenRotation: 'keep' });
    expect((await settingsOf(first.connect.projectID)).selfServiceFlows).toBe('disabled');

    writeFileSync(savedFile, JSON.stringify(first));
    const again = await ensureDemoProject({ mongodbUri: db.uri, masterKey, ...urls, savedFile });
    expect(again).toEqual(first);
  });

  it('adds the connect project to a file of the one-project shape, and turns the flows on for the old project', async () => {
    const savedFile = join(dir, 'old-demo-project.json');
    const first = await ensureDemoProject({ mongodbUri: db.uri, masterKey, ...urls, savedFile });
    // A record stored before the setting existed, and a file written before the connect project did.
    await db.store.db.collection('projects').updateOne({ _id: first.projectID as never }, { $unset: { selfServiceFlows: '' } });
    const { connect: _dropped, ...oldShape } = first;
    writeFileSync(savedFile, JSON.stringify(oldShape));
    const next = await ensureDemoProject({ mongodbUri: db.uri, masterKey, ...urls, savedFile });
    expect(next.projectID).toBe(first.projectID);
    expect(next.apiSecret).toBe(first.apiSecret);
    expect(next.connect.projectID).toBe(first.connect.projectID);
    expect(await settingsOf(next.projectID)).toMatchObject({ selfServiceFlows: 'enabled' });
    expect((await settingsOf(next.connect.projectID)).selfServiceFlows).toBe('disabled');
  });
});
