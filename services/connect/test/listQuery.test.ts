import { describe, expect, it } from 'vitest';
import { DomainError } from '../../runtime/errors.js';
import { parsePaging } from '../../runtime/listQuery.js';
import { parseIdentifierFilters, parseIdentifierSort } from '../src/users/domain/identifierListQuery.js';

function problemField(fn: () => unknown): string {
  try {
    fn();
  } catch (err) {
    expect(err).toBeInstanceOf(DomainError);
    expect((err as DomainError).kind).toBe('invalid_argument');
    return (err as DomainError).validation[0].field;
  }
  throw new Error('expected a DomainError');
}

describe('identifier list filters', () => {
  it('parse each field', () => {
    expect(parseIdentifierFilters(['identifierType:eq:email', 'status:eq:verified', 'userID:eq:usr-123'])).toEqual([
      { field: 'type', value: 'email' },
      { field: 'status', value: 'verified' },
      { field: 'userId', value: 'usr-123' },
    ]);
  });

  it('accept the Node SDK userID without the usr- prefix', () => {
    expect(parseIdentifierFilters(['userID:eq:4711'])).toEqual([{ field: 'userId', value: 'usr-4711' }]);
  });

  it('normalize identifierValue by the type filter, or lower-case and trim without one', () => {
    expect(parseIdentifierFilters(['identifierValue:eq:+49 (151) 1234-5678', 'identifierType:eq:phone'])[0]).toEqual({ field: 'value', value: '+4915112345678' });
    expect(parseIdentifierFilters(['identifierType:eq:email', 'identifierValue:eq: Jane@Example.com '])[1]).toEqual({ field: 'value', value: 'jane@example.com' });
    expect(parseIdentifierFilters(['identifierValue:eq: Jane@Example.com '])).toEqual([{ field: 'value', value: 'jane@example.com' }]);
    // Not a valid email, so it can match nothing; it is kept rather than rejected.
    expect(parseIdentifierFilters(['identifierType:eq:email', 'identifierValue:eq:Nope'])[1]).toEqual({ field: 'value', value: 'nope' });
  });

  it('keep colons inside the value', () => {
    expect(parseIdentifierFilters(['identifierValue:eq:a:b'])).toEqual([{ field: 'value', value: 'a:b' }]);
  });

  it.each([['name:eq:x'], ['identifierValue:gt:x'], ['identifierValue'], ['userID:eq:abc'], ['identifierType:eq:fax'], ['status:eq:active'], ['constructor:eq:x']])(
    'reject %j naming filter',
    (filter) => {
      expect(problemField(() => parseIdentifierFilters([filter]))).toBe('filter');
    },
  );
});

describe('identifier list sort', () => {
  it('is creation order when empty (the SDK always sends sort=)', () => {
    expect(parseIdentifierSort('')).toBeNull();
  });
  it.each([
    ['identifierValue:asc', { field: 'value', direction: 'asc' }],
    ['identifierType:desc', { field: 'type', direction: 'desc' }],
    ['userID:asc', { field: 'userId', direction: 'asc' }],
    ['status:desc', { field: 'status', direction: 'desc' }],
    ['created:desc', { field: 'createdAt', direction: 'desc' }],
  ])('%s', (sort, expected) => {
    expect(parseIdentifierSort(sort)).toEqual(expected);
  });
  it.each([['name:asc'], ['created'], ['created:up'], ['created:asc:x']])('rejects %j naming sort', (sort) => {
    expect(problemField(() => parseIdentifierSort(sort))).toBe('sort');
  });
});

describe('paging', () => {
  it('defaults to page 1 of 10', () => {
    expect(parsePaging(undefined, undefined)).toEqual({ page: 1, pageSize: 10 });
    expect(parsePaging(3, 25)).toEqual({ page: 3, pageSize: 25 });
  });
  it('rejects out-of-range values', () => {
    expect(problemField(() => parsePaging(0, 10))).toBe('page');
    expect(problemField(() => parsePaging(1, 101))).toBe('pageSize');
  });
});
