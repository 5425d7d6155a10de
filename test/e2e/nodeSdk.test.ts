/**
 * Drop-in test: the published Node SDK (@corbado/node-sdk), unchanged, configured with our project
 * ID, API secret and URLs, manages users and identifiers against our gateway.
 */
import { Config, SDK } from '@corbado/node-sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startStack, type ProjectJson, type Stack } from './stack.js';

let stack: Stack;
let project: ProjectJson;
let sdk: SDK;

beforeAll(async () => {
  stack = await startStack();
  project = await stack.createProject('node-sdk-e2e');
  sdk = new SDK(new Config(project.projectID, project.apiSecret, project.frontendApiUrl, project.backendApiUrl));
}, 120_000);
afterAll(async () => stack?.stop());

describe('@corbado/node-sdk against the gateway', () => {
  it('accepts our project ID and API secret shapes', () => {
    expect(project.projectID).toMatch(/^pro-[0-9]+$/);
    expect(project.apiSecret.startsWith('corbado1_')).toBe(true);
  });

  it('creates, gets and deletes a user', async () => {
    const user = await sdk.users().createActiveByName('Grace Hopper');
    expect(user.userID).toMatch(/^usr-[0-9]+$/);
    expect(user.fullName).toBe('Grace Hopper');
    expect(user.status).toBe('active');
    const fetched = await sdk.users().get(user.userID);
    expect(fetched).toEqual(user);
    const deleted = await sdk.users().delete(user.userID);
    expect(deleted.httpStatusCode).toBe(200);
    expect(deleted.requestData.requestID).toMatch(/\S/);
    await expect(sdk.users().get(user.userID)).rejects.toMatchObject({ httpStatusCode: 404 });
  });

  it('creates, lists (by value and type, by user) and deletes identifiers', async () => {
    const user = await sdk.users().createActiveByName('Katherine Johnson');
    const email = await sdk.identifiers().create(user.userID, { identifierType: 'email', identifierValue: 'Katherine@NASA.example', status: 'primary' });
    expect(email).toMatchObject({ type: 'email', value: 'katherine@nasa.example', status: 'primary', userID: user.userID });
    expect(email.identifierID).toMatch(/^ide-[0-9]+$/);
    const phone = await sdk.identifiers().create(user.userID, { identifierType: 'phone', identifierValue: '+15551234567', status: 'pending' });

    const byValue = await sdk.identifiers().listByValueAndType('katherine@nasa.example', 'email');
    expect(byValue.identifiers).toEqual([email]);
    expect(byValue.paging).toEqual({ page: 1, totalPages: 1, totalItems: 1 });

    const byUser = await sdk.identifiers().listByUserId(user.userID);
    expect(byUser.identifiers.map((i) => i.identifierID).sort()).toEqual([email.identifierID, phone.identifierID].sort());
    const byUserAndType = await sdk.identifiers().listByUserIdAndType(user.userID, 'phone');
    expect(byUserAndType.identifiers).toEqual([phone]);

    const verified = await sdk.identifiers().updateStatus(user.userID, phone.identifierID, 'verified');
    expect(verified.status).toBe('verified');

    const del = await sdk.identifiers().delete(user.userID, email.identifierID);
    expect(del.httpStatusCode).toBe(200);
    expect((await sdk.identifiers().listByValueAndType('katherine@nasa.example', 'email')).identifiers).toEqual([]);
  });

  it('surfaces our errors as the SDK\'s ServerError with status and validation', async () => {
    const user = await sdk.users().createActiveByName('Dorothy Vaughan');
    await sdk.identifiers().create(user.userID, { identifierType: 'email', identifierValue: 'dorothy@example.com', status: 'primary' });
    await expect(
      sdk.identifiers().create(user.userID, { identifierType: 'email', identifierValue: 'dorothy@example.com', status: 'primary' }),
    ).rejects.toMatchObject({ httpStatusCode: 409 });
    await expect(sdk.users().get('usr-1')).rejects.toMatchObject({ httpStatusCode: 404 });
  });

  it('deleting a user removes its identifiers', async () => {
    const user = await sdk.users().createActiveByName('Mary Jackson');
    await sdk.identifiers().create(user.userID, { identifierType: 'username', identifierValue: 'mary.j', status: 'primary' });
    await sdk.users().delete(user.userID);
    expect((await sdk.identifiers().listByUserId(user.userID)).identifiers).toEqual([]);
  });

  it('rejects a wrong API secret', async () => {
    const wrong = new SDK(new Config(project.projectID, `corbado1_${'x'.repeat(43)}`, project.frontendApiUrl, project.backendApiUrl));
    await expect(wrong.users().get('usr-1')).rejects.toMatchObject({ httpStatusCode: 401 });
  });
});
