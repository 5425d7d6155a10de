/**
 * The insights module: detection and decision insights for appends and logins, client
 * environments and the ceremony event trail. Ceremonies use createInsightsService and the types;
 * main.ts adds insightsIndexes (store/insightsIndexes.ts) to the service's index plan and closes
 * the service on shutdown, so queued events are written.
 */
export { createInsightsService, type InsightsOptions, type InsightsRuntime } from './insightsService.js';
export { clientEnvKey } from './clientEnvKey.js';
export { parseUserAgent, osFamilyOf, type ParsedUserAgent } from './userAgent.js';
export { APPEND_TAGS } from './appendDecision.js';
export { LOGIN_TAGS } from './loginDecision.js';
export type * from './types.js';
