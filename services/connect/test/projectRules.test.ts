import { describe, expect, it } from 'vitest';
import { DomainError } from '../../runtime/errors.js';
import { frontendApiUrlFor, normalizeOrigin, normalizeOrigins, normalizeRpId } from '../src/projects/domain/projectRules.js';

describe('origins', () => {
  it.each([
    ['http://localhost:3000', 'http://localhost:3000'],
    ['https://App.Example.com', 'https://app.example.com'],
    ['https://app.example.com:443', 'https://app.example.com'],
    ['https://app.example.com/', 'https://app.example.com'],
  ])('%s → %s', (input, expected) => {
    expect(normalizeOrigin(input)).toBe(expected);
  });

  it.each([['localhost:3000'], ['ftp://example.com'], ['https://example.com/login'], ['https://example.com/.'], ['https://example.com?x=1'], ['https://example.com#x'], ['https://u:p@example.com'], ['']])(
    'rejects %j',
    (input) => {
      expect(() => normalizeOrigin(input)).toThrow(DomainError);
    },
  );

  it('needs at least one and drops duplicates', () => {
    expect(() => normalizeOrigins([])).toThrow(/at least one/);
    expect(normalizeOrigins(['http://localhost:3000', 'http://LOCALHOST:3000/'])).toEqual(['http://localhost:3000']);
  });
});

describe('RP ID', () => {
  it('accepts domains and localhost', () => {
    expect(normalizeRpId('localhost')).toBe('localhost');
    expect(normalizeRpId(' Example.COM ')).toBe('example.com');
  });
  it.each([['https://example.com'], ['example.com:443'], ['-bad.com'], ['a..b'], ['']])('rejects %j', (input) => {
    expect(() => normalizeRpId(input)).toThrow(DomainError);
  });
});

describe('frontend API URL', () => {
  it('substitutes {projectID} and drops trailing slashes', () => {
    expect(frontendApiUrlFor('https://{projectID}.auth.example.com/', 'pro-42')).toBe('https://pro-42.auth.example.com');
    expect(frontendApiUrlFor('http://localhost:8080', 'pro-42')).toBe('http://localhost:8080');
  });
  it('rejects non-URLs', () => {
    expect(() => frontendApiUrlFor('not a url', 'pro-42')).toThrow(DomainError);
  });
});
