/**
 * The wire constants: the project-ID shape the gateway and services check, the proto validation
 * rules that mirror it, and the header names the services read (which the gateway writes).
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { newId } from '../ids.js';
import { HEADERS, PROJECT_ID, PROJECT_ID_PATTERN } from '../wire.js';

const PROTO_ROOT = join(import.meta.dirname, '../../../proto');

function protoFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? protoFiles(join(dir, e.name)) : e.name.endsWith('.proto') ? [join(dir, e.name)] : []));
}

describe('PROJECT_ID', () => {
  it('accepts the IDs newId makes and up to 30 digits, nothing else', () => {
    expect(PROJECT_ID.test(newId('pro'))).toBe(true);
    expect(PROJECT_ID.test('pro-1')).toBe(true);
    expect(PROJECT_ID.test(`pro-${'9'.repeat(30)}`)).toBe(true);
    for (const bad of ['pro-', `pro-${'9'.repeat(31)}`, 'pro-12a', 'PRO-123', 'usr-123', ' pro-123', 'pro-123\n', 'pro-123.example.com']) {
      expect(PROJECT_ID.test(bad), bad).toBe(false);
    }
  });

  it('is the pattern every proto validation rule on a project ID mirrors', () => {
    const patterns = protoFiles(PROTO_ROOT).flatMap((file) => [...readFileSync(file, 'utf8').matchAll(/string\.pattern = "(\^pro-[^"]*)"/g)].map((m) => m[1]));
    expect(patterns.length).toBeGreaterThanOrEqual(2);
    for (const pattern of patterns) expect(pattern).toBe(PROJECT_ID_PATTERN);
  });
});

describe('HEADERS', () => {
  it('are distinct lower-case names, internal ones under x-passkeyauth-', () => {
    const names = Object.values(HEADERS);
    expect(new Set(names).size).toBe(names.length);
    for (const [key, name] of Object.entries(HEADERS)) {
      expect(name).toBe(name.toLowerCase());
      if (key !== 'requestId') expect(name).toMatch(/^x-passkeyauth-[a-z-]+$/);
    }
  });
});
