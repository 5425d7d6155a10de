/**
 * An endpoint's delivery log (GET /v2/webhookEndpoints/{id}/deliveries) with the reference API's
 * list parameters (services/runtime/listQuery.ts): `filter[]` entries `status:eq:…`,
 * `eventType:eq:…`, `eventID:eq:…`; `sort` `created:asc|desc` (newest first by default); page and
 * pageSize. It is bounded by what is stored: the last 10 attempts per delivery, and finished
 * deliveries for 14 days (store/webhookDeliveries.ts).
 */
import { badFilter, parseFilterEntries, parsePaging, parseSortParam } from '../../../runtime/listQuery.js';
import { EVENT_TYPES, isEventType } from './eventTypes.js';
import { findWebhookEndpoint } from './manageWebhookEndpoints.js';
import type { DeliveryListQuery, DeliveryRecord, DeliveryStatus, DeliveryStore, WebhookEndpointStore } from './ports.js';

/** The API's names of the stored statuses: a delivered delivery "succeeded". */
const STATUS_NAMES: Record<DeliveryStatus, string> = { pending: 'pending', delivered: 'succeeded', failed: 'failed' };

export interface DeliveryAttemptView {
  time: string;
  timeMs: bigint;
  httpStatus: number;
  durationMs: bigint;
  error?: string;
}

export interface DeliveryView {
  eventId: string;
  eventType: string;
  status: string;
  created: string;
  createdMs: bigint;
  attemptCount: number;
  nextAttempt?: string;
  nextAttemptMs?: bigint;
  finished?: string;
  finishedMs?: bigint;
  attempts: DeliveryAttemptView[];
}

export interface DeliveryList {
  items: DeliveryView[];
  paging: { page: number; totalPages: number; totalItems: number };
}

export function describeDelivery(d: DeliveryRecord): DeliveryView {
  return {
    eventId: d.eventId,
    eventType: d.type,
    status: STATUS_NAMES[d.status],
    created: d.createdAt.toISOString(),
    createdMs: BigInt(d.createdAt.getTime()),
    attemptCount: d.attempts,
    ...(d.status === 'pending' ? { nextAttempt: d.nextAttemptAt.toISOString(), nextAttemptMs: BigInt(d.nextAttemptAt.getTime()) } : {}),
    ...(d.finishedAt ? { finished: d.finishedAt.toISOString(), finishedMs: BigInt(d.finishedAt.getTime()) } : {}),
    attempts: d.log.map((a) => ({ time: a.at.toISOString(), timeMs: BigInt(a.at.getTime()), httpStatus: a.status, durationMs: BigInt(a.durationMs), ...(a.error ? { error: a.error } : {}) })),
  };
}

type Field = 'status' | 'type' | 'eventId';
const FIELDS: Record<string, Field> = { status: 'status', eventType: 'type', eventID: 'eventId' };

/** Parses the list parameters; each filter field at most once (two different values would match nothing anyway). */
export function parseDeliveryListQuery(input: { filter: readonly string[]; sort: string; page?: number; pageSize?: number }): DeliveryListQuery {
  const sort = parseSortParam(input.sort, { created: 'createdAt' as const });
  const query: DeliveryListQuery = { direction: sort?.direction ?? 'desc', ...parsePaging(input.page, input.pageSize) };
  for (const { field, name, value } of parseFilterEntries(input.filter, FIELDS)) {
    if (query[field] !== undefined) throw badFilter(`${name} may be given once`);
    if (field === 'status') {
      const stored = (Object.keys(STATUS_NAMES) as DeliveryStatus[]).find((s) => STATUS_NAMES[s] === value);
      if (!stored) throw badFilter(`status must be one of ${Object.values(STATUS_NAMES).join(', ')}, got "${value}"`);
      query.status = stored;
    } else if (field === 'eventId') {
      if (!/^evt-[0-9]{1,30}$/.test(value)) throw badFilter(`eventID must be "evt-<number>", got "${value}"`);
      query.eventId = value;
    } else {
      if (!isEventType(value)) throw badFilter(`eventType must be one of ${EVENT_TYPES.join(', ')}, got "${value}"`);
      query.type = value;
    }
  }
  return query;
}

/** One page of the project's endpoint's deliveries; another project's endpoint (or none) is not_found. */
export async function listWebhookDeliveries(
  deps: { endpoints: WebhookEndpointStore; deliveries: DeliveryStore },
  input: { projectId: string; endpointId: string; filter: readonly string[]; sort: string; page?: number; pageSize?: number },
): Promise<DeliveryList> {
  const query = parseDeliveryListQuery(input);
  await findWebhookEndpoint(deps, input.projectId, input.endpointId);
  const { items, total } = await deps.deliveries.listForEndpoint(input.projectId, input.endpointId, query);
  return { items: items.map(describeDelivery), paging: { page: query.page, totalPages: Math.ceil(total / query.pageSize), totalItems: total } };
}
