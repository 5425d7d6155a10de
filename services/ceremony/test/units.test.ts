/** The pure rules: transports per strategy, ceremony types, AAGUID details, the metadata file, the project cache. */
import { createClient, createRouterTransport } from '@connectrpc/connect';
import { create } from '@bufbuild/protobuf';
import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { GetProjectPublicInfoResponseSchema, ProjectService } from '../../../gen/passkeyauth/connect/v1/project_service_pb.js';
import { readAaguidMetadataFile } from '../src/aaguidMetadataFile.js';
import { rpcProjectDirectory } from '../src/clients/connectDirectory.js';
import { createAaguidCatalog, GENERIC_ICON_DARK, GENERIC_ICON_LIGHT } from '../src/domain/aaguidDetails.js';
import { ceremonyTypeOf, hintsFor, offeredTransports } from '../src/domain/ceremonyRules.js';
import { coseKeyProblem } from '../src/domain/responseFields.js';

describe('offeredTransports and hintsFor', () => {
  it('standard keeps, minimize drops hybrid, maximize adds it; unknown transports stay unknown', () => {
    expect(offeredTransports(['hybrid', 'internal'], 'standard')).toEqual(['hybrid', 'internal']);
    expect(offeredTransports(['hybrid', 'internal'], 'minimize')).toEqual(['internal']);
    expect(offeredTransports(['usb'], 'maximize')).toEqual(['usb', 'hybrid']);
    expect(offeredTransports(['hybrid'], 'maximize')).toEqual(['hybrid']);
    expect(offeredTransports([], 'maximize')).toEqual([]);
    expect(offeredTransports([], 'minimize')).toEqual([]);
    expect([hintsFor('standard'), hintsFor('minimize'), hintsFor('maximize')]).toEqual([[], ['client-device'], ['hybrid']]);
  });
});

describe('ceremonyTypeOf', () => {
  it('cda for cross-platform with hybrid, security-key for cross-platform without, local otherwise', () => {
    expect(ceremonyTypeOf('cross-platform', ['hybrid', 'internal'])).toBe('cda');
    expect(ceremonyTypeOf('cross-platform', ['usb', 'nfc'])).toBe('security-key');
    expect(ceremonyTypeOf('cross-platform', [])).toBe('security-key');
    expect(ceremonyTypeOf('platform', ['hybrid'])).toBe('local');
    expect(ceremonyTypeOf(null, ['hybrid'])).toBe('local');
  });
});

describe('AAGUID details', () => {
  it('names from the package, generic names otherwise, generic icons as data URIs', () => {
    const catalog = createAaguidCatalog();
    expect(catalog.details('08987058-CADC-4B81-B6E1-30DE50DCBE96')).toEqual({
      aaguid: '08987058-cadc-4b81-b6e1-30de50dcbe96',
      name: 'Windows Hello',
      iconLight: GENERIC_ICON_LIGHT,
      iconDark: GENERIC_ICON_DARK,
    });
    expect(catalog.details('00000000-0000-0000-0000-000000000000').name).toBe('Passkey');
    expect(catalog.details('12345678-1234-1234-1234-123456789abc').name).toBe('Unknown authenticator');
    expect(catalog.details('__proto__').name).toBe('Unknown authenticator');
    expect(Buffer.from(GENERIC_ICON_LIGHT.split(',')[1], 'base64').toString()).toMatch(/^<svg [^>]*stroke="#1f2937"/);
    expect(GENERIC_ICON_DARK).not.toBe(GENERIC_ICON_LIGHT);
  });

  it("the operator's metadata file overrides names and supplies icons", async () => {
    const dir = await mkdtemp(join(tmpdir(), 'aaguid-'));
    const file = join(dir, 'aaguids.json');
    await writeFile(
      file,
      JSON.stringify({
        '08987058-cadc-4b81-b6e1-30de50dcbe96': { name: 'Windows Hello (ours)', icon_light: 'data:image/png;base64,AAAA', icon_dark: 'data:image/png;base64,BBBB' },
        'FBFC3007-154E-4ECC-8C0B-6E020557D7BD': { name: 'iCloud Keychain', icon_light: 'data:image/svg+xml;base64,CCCC', icon_dark: null },
        'ea9b8d66-4d01-1d21-3ce4-b6b48cb575d4': { icon_light: 'https://tracker.example/icon.png' },
      }),
    );
    const catalog = createAaguidCatalog(await readAaguidMetadataFile(file));
    expect(catalog.details('08987058-cadc-4b81-b6e1-30de50dcbe96')).toMatchObject({ name: 'Windows Hello (ours)', iconLight: 'data:image/png;base64,AAAA', iconDark: 'data:image/png;base64,BBBB' });
    // A missing variant falls back to the other one.
    expect(catalog.details('fbfc3007-154e-4ecc-8c0b-6e020557d7bd')).toMatchObject({ name: 'iCloud Keychain', iconLight: 'data:image/svg+xml;base64,CCCC', iconDark: 'data:image/svg+xml;base64,CCCC' });
    // Only data URIs are used as icons; the package's name stays.
    expect(catalog.details('ea9b8d66-4d01-1d21-3ce4-b6b48cb575d4')).toMatchObject({ name: 'Google Password Manager', iconLight: GENERIC_ICON_LIGHT });

    for (const [content, message] of [
      ['nope', /is not JSON/],
      ['[]', /JSON object keyed by AAGUID/],
      ['{"x": {}}', /is not an AAGUID/],
      ['{"08987058-cadc-4b81-b6e1-30de50dcbe96": {"name": 5}}', /name must be a string/],
    ] as const) {
      await writeFile(file, content);
      await expect(readAaguidMetadataFile(file)).rejects.toThrow(message);
    }
  });
});

describe('rpcProjectDirectory', () => {
  it('reuses a project for the TTL, then asks again; defaults an unknown policy to required', async () => {
    let calls = 0;
    let t = 0;
    const transport = createRouterTransport((router) =>
      router.service(ProjectService, {
        getProjectPublicInfo: async (req) => {
          calls++;
          return create(GetProjectPublicInfoResponseSchema, { projectId: req.projectId, rpId: 'example.com', rpName: 'E', origins: ['https://example.com'], userVerification: '' });
        },
      }),
    );
    const dir = rpcProjectDirectory(createClient(ProjectService, transport), { ttlMs: 30_000, now: () => t });
    expect((await dir.get('pro-1')).userVerification).toBe('required');
    t = 29_999;
    await dir.get('pro-1');
    expect(calls).toBe(1);
    t = 30_000;
    await dir.get('pro-1');
    expect(calls).toBe(2);
  });

  it('carries the project\'s event retention; none sent (an older connect service) means the 90-day default', async () => {
    const transport = createRouterTransport((router) =>
      router.service(ProjectService, {
        getProjectPublicInfo: async (req) =>
          create(GetProjectPublicInfoResponseSchema, { projectId: req.projectId, rpId: 'example.com', origins: [], eventRetentionDays: req.projectId === 'pro-30' ? 30 : 0 }),
      }),
    );
    const dir = rpcProjectDirectory(createClient(ProjectService, transport));
    expect((await dir.get('pro-30')).eventRetentionDays).toBe(30);
    expect((await dir.get('pro-1')).eventRetentionDays).toBe(90);
  });
});

describe('rpcProjectDirectory: clone detection', () => {
  it('carries "record" when the project says so; anything else (none sent, an older connect service) means block', async () => {
    const transport = createRouterTransport((router) =>
      router.service(ProjectService, {
        getProjectPublicInfo: async (req) =>
          create(GetProjectPublicInfoResponseSchema, { projectId: req.projectId, rpId: 'example.com', origins: [], cloneDetection: req.projectId === 'pro-9' ? 'record' : req.projectId === 'pro-8' ? 'weird' : '' }),
      }),
    );
    const dir = rpcProjectDirectory(createClient(ProjectService, transport));
    expect((await dir.get('pro-9')).cloneDetection).toBe('record');
    expect((await dir.get('pro-8')).cloneDetection).toBe('block');
    expect((await dir.get('pro-1')).cloneDetection).toBe('block');
  });
});

describe('coseKeyProblem (credential public keys must be whole)', () => {
  const bytes = (n: number) => new Uint8Array(n).fill(7);
  const key = (entries: [number, unknown][]) => new Map<number, unknown>(entries);

  it('accepts whole P-256, P-384, Ed25519 and RSA-2048 keys', () => {
    expect(coseKeyProblem(key([[1, 2], [3, -7], [-1, 1], [-2, bytes(32)], [-3, bytes(32)]]))).toBeNull();
    expect(coseKeyProblem(key([[1, 2], [3, -35], [-1, 2], [-2, bytes(48)], [-3, bytes(48)]]))).toBeNull();
    expect(coseKeyProblem(key([[1, 1], [3, -8], [-1, 6], [-2, bytes(32)]]))).toBeNull();
    expect(coseKeyProblem(key([[1, 3], [3, -257], [-1, bytes(256)], [-2, bytes(3)]]))).toBeNull();
  });

  it('refuses a truncated coordinate, key or modulus, and unknown curves and key types', () => {
    expect(coseKeyProblem(key([[1, 2], [-1, 1], [-2, bytes(32)], [-3, bytes(31)]]))).toMatch(/32 bytes/);
    expect(coseKeyProblem(key([[1, 1], [-1, 6], [-2, bytes(31)]]))).toMatch(/32 bytes/);
    expect(coseKeyProblem(key([[1, 3], [-1, bytes(255)], [-2, bytes(3)]]))).toMatch(/modulus/);
    expect(coseKeyProblem(key([[1, 3], [-1, bytes(256)]]))).toMatch(/exponent/);
    expect(coseKeyProblem(key([[1, 2], [-1, 9], [-2, bytes(32)], [-3, bytes(32)]]))).toMatch(/curve/);
    expect(coseKeyProblem(key([[1, 4]]))).toMatch(/key type/);
  });
});
