/**
 * Per-project settings the ceremony service follows: the retention of ceremony events and the
 * clone detection policy. Each is set at creation or later (domain and CLI), checked, and
 * published in GetProjectPublicInfo for the ceremony service.
 */
import { Code, ConnectError } from '@connectrpc/connect';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ErrorInfoSchema } from '../../../gen/passkeyauth/common/v1/errors_pb.js';
import { parseProjectCommand, UsageError } from '../src/cli/projectAdmin.js';
import { createProject } from '../src/projects/domain/createProject.js';
import { updateEventSettings, updatePasskeySettings } from '../src/projects/domain/updateProjectSettings.js';
import { clients, inMemoryTransport, startTestEnv, type Clients, type TestEnv } from './support.js';

let env: TestEnv;
let rpc: Clients;

beforeAll(async () => {
  env = await startTestEnv();
  rpc = clients(inMemoryTransport(env.deps));
});
afterAll(() => env?.close());

const base = { rpId: 'localhost', origins: ['http://localhost:3000'] };

async function typeOf(p: Promise<unknown>): Promise<string> {
  try {
    await p;
  } catch (err) {
    return (err as { type?: string }).type ?? ConnectError.from(err).findDetails(ErrorInfoSchema)[0]?.type ?? '';
  }
  throw new Error('expected a failure');
}

describe('event retention', () => {
  it('defaults to 90 days and is published to the services', async () => {
    const { project } = await createProject(env.deps, { name: 'Retention default', ...base });
    expect(project.eventRetentionDays).toBeUndefined();
    const info = await rpc.projects.getProjectPublicInfo({ projectId: project._id });
    expect(info.eventRetentionDays).toBe(90);
  });

  it('is set at creation and changed later; the public facts follow', async () => {
    const { project } = await createProject(env.deps, { name: 'Retention 30', ...base, eventRetentionDays: 30 });
    expect((await rpc.projects.getProjectPublicInfo({ projectId: project._id })).eventRetentionDays).toBe(30);
    const updated = await updateEventSettings(env.deps, project._id, { eventRetentionDays: 400 });
    expect(updated.eventRetentionDays).toBe(400);
    expect((await rpc.projects.getProjectPublicInfo({ projectId: project._id })).eventRetentionDays).toBe(400);
    // Without a value nothing changes.
    expect((await updateEventSettings(env.deps, project._id, {})).eventRetentionDays).toBe(400);
  });

  it('refuses values out of range and unknown projects', async () => {
    for (const bad of [0, -1, 3651, 1.5, Number.NaN]) {
      expect(await typeOf(createProject(env.deps, { name: 'Retention bad', ...base, eventRetentionDays: bad }))).toBe('validation_error');
      expect(await typeOf(updateEventSettings(env.deps, 'pro-1', { eventRetentionDays: bad }))).toBe('validation_error');
    }
    expect(await typeOf(updateEventSettings(env.deps, 'pro-1', { eventRetentionDays: 30 }))).toBe('project_not_found');
  });

  it('create --event-retention-days and event-settings (CLI) set and print it', async () => {
    const created = await parseProjectCommand(['create', '--name', 'Retention CLI', '--rp-id', 'localhost', '--origin', 'http://localhost:3000', '--event-retention-days', '14']).run(env.deps);
    const projectId = (created as { projectID: string }).projectID;
    expect(await parseProjectCommand(['event-settings', '--project', projectId]).run(env.deps)).toEqual({ projectID: projectId, eventRetentionDays: 14 });
    expect(await parseProjectCommand(['event-settings', '--project', projectId, '--event-retention-days', '365']).run(env.deps)).toEqual({ projectID: projectId, eventRetentionDays: 365 });
    expect((await env.deps.projects.find(projectId))?.eventRetentionDays).toBe(365);
    expect(() => parseProjectCommand(['event-settings', '--project', projectId, '--event-retention-days', '0'])).toThrow(UsageError);
    expect(() => parseProjectCommand(['event-settings', '--project', projectId, '--event-retention-days', '1e3'])).toThrow(UsageError);
    expect(() => parseProjectCommand(['create', '--name', 'x', '--rp-id', 'localhost', '--origin', 'http://localhost:3000', '--event-retention-days', '4000'])).toThrow(UsageError);
  });
});

describe('clone detection policy', () => {
  it('defaults to block, can be record, and is published to the services', async () => {
    const { project } = await createProject(env.deps, { name: 'Clones default', ...base });
    expect(project.cloneDetection).toBeUndefined();
    expect((await rpc.projects.getProjectPublicInfo({ projectId: project._id })).cloneDetection).toBe('block');
    const relaxed = await createProject(env.deps, { name: 'Clones record', ...base, cloneDetection: 'record' });
    expect((await rpc.projects.getProjectPublicInfo({ projectId: relaxed.project._id })).cloneDetection).toBe('record');
    expect((await updatePasskeySettings(env.deps, relaxed.project._id, { cloneDetection: 'block' })).cloneDetection).toBe('block');
    expect((await rpc.projects.getProjectPublicInfo({ projectId: relaxed.project._id })).cloneDetection).toBe('block');
  });

  it('refuses unknown policies and unknown projects', async () => {
    expect(await typeOf(createProject(env.deps, { name: 'Clones bad', ...base, cloneDetection: 'ignore' }))).toBe('validation_error');
    expect(await typeOf(updatePasskeySettings(env.deps, 'pro-1', { cloneDetection: 'Block' }))).toBe('validation_error');
    expect(await typeOf(updatePasskeySettings(env.deps, 'pro-1', { cloneDetection: 'record' }))).toBe('project_not_found');
  });

  it('create --clone-detection and passkey-settings (CLI) set and print it', async () => {
    const created = await parseProjectCommand(['create', '--name', 'Clones CLI', '--rp-id', 'localhost', '--origin', 'http://localhost:3000', '--clone-detection', 'record']).run(env.deps);
    const projectId = (created as { projectID: string }).projectID;
    expect(await parseProjectCommand(['passkey-settings', '--project', projectId]).run(env.deps)).toEqual({ projectID: projectId, cloneDetection: 'record' });
    expect(await parseProjectCommand(['passkey-settings', '--project', projectId, '--clone-detection', 'block']).run(env.deps)).toEqual({ projectID: projectId, cloneDetection: 'block' });
    expect(() => parseProjectCommand(['passkey-settings', '--project', projectId, '--clone-detection', 'off'])).toThrow(UsageError);
  });
});

it('keeps the not-found code of GetProjectPublicInfo', async () => {
  await expect(rpc.projects.getProjectPublicInfo({ projectId: 'pro-424242' })).rejects.toMatchObject({ code: Code.NotFound });
});
