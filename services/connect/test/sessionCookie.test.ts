/**
 * The session cookie of GET /v2/session-config: host-only unless the project opted into a shared
 * domain (checked: the RP ID or a name under it, covering every origin, all https), and Secure for
 * every project but an all-http-loopback development one.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseProjectCommand, UsageError } from '../src/cli/projectAdmin.js';
import { addOrigin } from '../src/projects/domain/origins.js';
import { createProject } from '../src/projects/domain/createProject.js';
import { sharedCookieDomainProblem } from '../src/projects/domain/checkSharedCookieDomain.js';
import { describeSessionCookie } from '../src/projects/domain/describeSessionCookie.js';
import { updateCookieSettings } from '../src/projects/domain/updateCookieSettings.js';
import { startTestEnv, type TestEnv } from './support.js';

let env: TestEnv;
beforeAll(async () => {
  env = await startTestEnv();
});
afterAll(() => env?.close());

const project = (origins: string[], extra: { rpId?: string; sessionCookieDomain?: string } = {}) => ({ rpId: 'example.com', origins, ...extra });

async function typeOf(p: Promise<unknown>): Promise<string> {
  try {
    await p;
  } catch (err) {
    return (err as { type?: string }).type ?? 'unknown';
  }
  throw new Error('expected a failure');
}

describe('describeSessionCookie', () => {
  it('is host-only (an empty domain, which browsers ignore) and Secure for https origins', () => {
    expect(describeSessionCookie(project(['https://app.example.com']))).toEqual({ domain: '', secure: true, sameSite: 'lax', path: '/', lifetimeSeconds: 900 });
  });

  it('is Secure as soon as one origin is not http on a loopback host', () => {
    // Before: any http origin dropped Secure for every origin of the project.
    expect(describeSessionCookie(project(['https://app.example.com', 'http://localhost:3000'])).secure).toBe(true);
    expect(describeSessionCookie(project(['http://app.example.com'])).secure).toBe(true);
    expect(describeSessionCookie(project(['http://192.168.1.5:3000'])).secure).toBe(true);
    expect(describeSessionCookie(project([])).secure).toBe(true);
  });

  it('is not Secure only for a development project whose origins are all http on loopback', () => {
    expect(describeSessionCookie(project(['http://localhost:3000', 'http://127.0.0.1:3000', 'http://[::1]:3000', 'http://pro-1.localhost:8080'], { rpId: 'localhost' }))).toMatchObject({ domain: '', secure: false });
  });

  it('names the shared domain only while it still covers every origin', () => {
    expect(describeSessionCookie(project(['https://app.example.com', 'https://shop.example.com'], { sessionCookieDomain: 'example.com' }))).toMatchObject({ domain: 'example.com', secure: true });
    // An origin added later outside the domain (or an http one): host-only again, never a cookie the SDK cannot set.
    expect(describeSessionCookie(project(['https://app.example.com', 'https://other.example'], { sessionCookieDomain: 'example.com' })).domain).toBe('');
    expect(describeSessionCookie(project(['https://app.example.com', 'http://localhost:3000'], { sessionCookieDomain: 'example.com' })).domain).toBe('');
  });
});

describe('sharedCookieDomainProblem', () => {
  const p = project(['https://app.shop.example.com', 'https://www.shop.example.com']);
  it('accepts the RP ID or a name under it that covers every origin', () => {
    expect(sharedCookieDomainProblem(p, 'example.com')).toBeNull();
    expect(sharedCookieDomainProblem(p, 'shop.example.com')).toBeNull();
  });

  it('refuses a domain wider than the RP ID, outside it, not covering an origin, a single label or an IP address', () => {
    expect(sharedCookieDomainProblem(p, 'com')).toMatch(/two labels/);
    expect(sharedCookieDomainProblem(p, 'other.example')).toMatch(/RP ID/);
    expect(sharedCookieDomainProblem(project(['https://a.login.example.com'], { rpId: 'login.example.com' }), 'example.com')).toMatch(/RP ID/);
    expect(sharedCookieDomainProblem(p, 'app.shop.example.com')).toMatch(/not under/);
    expect(sharedCookieDomainProblem(project(['https://127.0.0.1'], { rpId: '127.0.0.1' }), '127.0.0.1')).toMatch(/IP address/);
    expect(sharedCookieDomainProblem(p, '.example.com')).toMatch(/domain name/);
    expect(sharedCookieDomainProblem(project(['https://localhost:3000'], { rpId: 'localhost' }), 'localhost')).toMatch(/two labels/);
  });

  it('refuses any http origin: a shared cookie is always Secure', () => {
    expect(sharedCookieDomainProblem(project(['https://app.example.com', 'http://app.example.com']), 'example.com')).toMatch(/https/);
  });
});

describe('updateCookieSettings and `project cookie-settings`', () => {
  it('sets a valid shared domain, refuses others with a validation error, and goes back to host-only', async () => {
    const { project: p } = await createProject(env.deps, { name: 'Cookie shared', rpId: 'example.com', origins: ['https://app.example.com', 'https://shop.example.com'] });
    expect(await typeOf(updateCookieSettings(env.deps, p._id, { sharedDomain: 'other.example' }))).toBe('validation_error');
    expect(await typeOf(updateCookieSettings(env.deps, p._id, { sharedDomain: 'app.example.com' }))).toBe('validation_error');
    expect(await typeOf(updateCookieSettings(env.deps, 'pro-99999', { sharedDomain: 'example.com' }))).toBe('project_not_found');
    expect((await updateCookieSettings(env.deps, p._id, { sharedDomain: 'Example.COM.' })).sessionCookieDomain).toBe('example.com');

    expect(await parseProjectCommand(['cookie-settings', '--project', p._id]).run(env.deps)).toEqual({ projectID: p._id, sessionCookieDomain: 'example.com', secure: true });
    expect(await parseProjectCommand(['cookie-settings', '--project', p._id, '--host-only']).run(env.deps)).toEqual({ projectID: p._id, sessionCookieDomain: null, secure: true });
    expect((await env.deps.projects.find(p._id))).not.toHaveProperty('sessionCookieDomain');
    expect(await parseProjectCommand(['cookie-settings', '--project', p._id, '--shared-domain', 'example.com']).run(env.deps)).toEqual({ projectID: p._id, sessionCookieDomain: 'example.com', secure: true });
    expect(() => parseProjectCommand(['cookie-settings', '--project', p._id, '--shared-domain', 'example.com', '--host-only'])).toThrow(UsageError);
    expect(() => parseProjectCommand(['cookie-settings', '--project', p._id, '--shared-domain', ''])).toThrow(UsageError);

    // An origin outside the domain added afterwards: the cookie is host-only again (and the CLI says so).
    await addOrigin(env.deps, p._id, 'https://elsewhere.example.org');
    expect(await parseProjectCommand(['cookie-settings', '--project', p._id]).run(env.deps)).toEqual({ projectID: p._id, sessionCookieDomain: null, secure: true });
  });

  it('writes only if the origins are still the ones checked', async () => {
    const { project: p } = await createProject(env.deps, { name: 'Cookie race', rpId: 'example.com', origins: ['https://app.example.com'] });
    const now = new Date();
    // The check saw one origin; another was added in between: the guarded write finds nothing.
    await addOrigin(env.deps, p._id, 'https://evil.example.org');
    expect(await env.deps.projects.updateSessionCookieDomain(p._id, 'example.com', { rpId: p.rpId, origins: p.origins }, now)).toBeNull();
    expect((await env.deps.projects.find(p._id))?.sessionCookieDomain).toBeUndefined();
  });
});
