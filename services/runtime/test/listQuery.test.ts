import { describe, expect, it } from 'vitest';
import { DomainError } from '../errors.js';
import { parseFilterEntries, parseFilterEntry, parseSortParam } from '../listQuery.js';

const FIELDS = { created: 'createdAt', userID: 'userId' } as const;

/** The error's public message and the field its validation entry names. */
function refusal(fn: () => unknown): { message: string; field: string | undefined } {
  try {
    fn();
  } catch (err) {
    expect(err).toBeInstanceOf(DomainError);
    const e = err as DomainError;
    return { message: e.message, field: e.validation[0]?.field };
  }
  throw new Error('expected a refusal');
}

describe('parseFilterEntry', () => {
  it('maps the outside name to the field and keeps a value that contains ":"', () => {
    expect(parseFilterEntry('userID:eq:usr-1:2', FIELDS)).toEqual({ field: 'userId', name: 'userID', value: 'usr-1:2' });
    expect(parseFilterEntry('userID:eq:', FIELDS)).toEqual({ field: 'userId', name: 'userID', value: '' });
  });

  it('refuses a malformed entry, an unknown field and any operator but eq, naming the filter', () => {
    expect(refusal(() => parseFilterEntry('userID', FIELDS))).toEqual({ message: 'filter entries must look like "field:eq:value"', field: 'filter' });
    expect(refusal(() => parseFilterEntry('email:eq:x', FIELDS))).toEqual({ message: 'filter field must be one of created, userID, got "email"', field: 'filter' });
    expect(refusal(() => parseFilterEntry('userID:ne:x', FIELDS))).toEqual({ message: 'filter operator must be "eq", got "ne" for userID', field: 'filter' });
    // Inherited names are not fields.
    expect(refusal(() => parseFilterEntry('toString:eq:x', FIELDS)).field).toBe('filter');
  });

  it('splits every entry of a list', () => {
    expect(parseFilterEntries(['created:eq:1', 'userID:eq:2'], FIELDS).map((e) => e.field)).toEqual(['createdAt', 'userId']);
  });
});

describe('parseSortParam', () => {
  it('reads field:asc|desc, trimmed; blank means the default order (null)', () => {
    expect(parseSortParam('created:desc', FIELDS)).toEqual({ field: 'createdAt', direction: 'desc' });
    expect(parseSortParam(' userID:asc ', FIELDS)).toEqual({ field: 'userId', direction: 'asc' });
    expect(parseSortParam('', FIELDS)).toBeNull();
    expect(parseSortParam('  ', FIELDS)).toBeNull();
  });

  it('refuses an unknown field and a missing or extra direction, naming the sort', () => {
    expect(refusal(() => parseSortParam('name:asc', FIELDS))).toEqual({ message: 'sort field must be one of created, userID, got "name"', field: 'sort' });
    expect(refusal(() => parseSortParam('created', FIELDS))).toEqual({ message: 'sort must look like "created:asc" or "created:desc", got "created"', field: 'sort' });
    expect(refusal(() => parseSortParam('created:asc:x', FIELDS)).field).toBe('sort');
  });
});
