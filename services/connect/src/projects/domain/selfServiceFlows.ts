/**
 * Whether a project serves the self-service sign-up and login flows (`/v2/auth/*`, the auth-flows
 * feature). Those flows let anyone create a user with any email address and a passkey alone: the
 * address is asserted, not proven. A project whose application signs users in through the connect
 * flows (its own login vouches for the user) must not serve them, or an attacker signs up with a
 * victim's address there. So they are off unless the operator turned them on:
 *   enabled:  /v2/auth/* is served (the passkey-first sign-up/login, e.g. @corbado/web-js);
 *   disabled (default, also for projects stored before the setting existed): every /v2/auth/*
 *             call is refused with 403 `self_service_disabled` before anything is written.
 */
import { invalidArgument, permissionDenied } from '../../../../runtime/errors.js';
import type { ProjectRecord, SelfServiceFlows } from '../store/projects.js';

export const SELF_SERVICE_SETTINGS: readonly SelfServiceFlows[] = ['enabled', 'disabled'];
/** Fail closed: a record without the setting (created before it existed) does not serve the flows. */
export const DEFAULT_SELF_SERVICE_FLOWS: SelfServiceFlows = 'disabled';

export function selfServiceFlowsOf(project: Pick<ProjectRecord, 'selfServiceFlows'>): SelfServiceFlows {
  return project.selfServiceFlows ?? DEFAULT_SELF_SERVICE_FLOWS;
}

/** The setting to store; undefined stays undefined (the caller decides the default). */
export function checkSelfServiceFlows(value: string | undefined): SelfServiceFlows | undefined {
  if (value === undefined) return undefined;
  if (!(SELF_SERVICE_SETTINGS as readonly string[]).includes(value)) {
    throw invalidArgument('validation_error', `selfServiceFlows must be one of ${SELF_SERVICE_SETTINGS.join(', ')}, got "${value}"`, [
      { field: 'selfServiceFlows', message: `must be one of ${SELF_SERVICE_SETTINGS.join(', ')}` },
    ]);
  }
  return value as SelfServiceFlows;
}

/** The gate of every /v2/auth/* call: refuses unless the project serves the self-service flows. */
export function requireSelfServiceFlows(project: Pick<ProjectRecord, '_id' | 'selfServiceFlows'>): void {
  if (selfServiceFlowsOf(project) !== 'enabled') {
    throw permissionDenied('self_service_disabled', `project ${project._id} does not serve the self-service sign-up and login flows (/v2/auth/*); the operator turns them on with \`project self-service-settings --self-service enabled\``);
  }
}
