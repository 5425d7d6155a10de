/**
 * How long the ceremony service keeps a project's ceremony events (its audit trail) before they
 * expire. A per-project setting (`project create --event-retention-days`, `project event-settings`)
 * that travels to the ceremony service with the project's public facts.
 */
import { invalidArgument } from '../../../../runtime/errors.js';
import type { ProjectRecord } from '../store/projects.js';

export const DEFAULT_EVENT_RETENTION_DAYS = 90;
export const MIN_EVENT_RETENTION_DAYS = 1;
/** Ten years: long enough for any audit duty, short enough that a date computed from it is valid. */
export const MAX_EVENT_RETENTION_DAYS = 3650;

export function eventRetentionDaysOf(project: Pick<ProjectRecord, 'eventRetentionDays'>): number {
  return project.eventRetentionDays ?? DEFAULT_EVENT_RETENTION_DAYS;
}

/** The retention to store; undefined stays undefined (the default applies). */
export function checkEventRetentionDays(value: number | undefined): number | undefined {
  if (value === undefined) return undefined;
  if (!Number.isInteger(value) || value < MIN_EVENT_RETENTION_DAYS || value > MAX_EVENT_RETENTION_DAYS) {
    throw invalidArgument('validation_error', `eventRetentionDays must be a whole number of days from ${MIN_EVENT_RETENTION_DAYS} to ${MAX_EVENT_RETENTION_DAYS}, got ${value}`, [
      { field: 'eventRetentionDays', message: `must be ${MIN_EVENT_RETENTION_DAYS}..${MAX_EVENT_RETENTION_DAYS}` },
    ]);
  }
  return value;
}
