import {
  type ContextApi,
  CrmError,
  type CrmEvent,
  type EventBus,
  type SqlClient,
  type Subscription,
  captureTraceContext,
  defineDurableConsumer,
  isUuid,
  newId,
  recordReader,
  type ServiceClient,
} from '@crm/kit';
import { type OwningContext, type PublicEvent, SOURCE_RESOURCES, SOURCE_SUBJECTS, goneData, publicEvent } from './public-events';

/**
 * Reads the record an event is about, as the API returns it, from its owning context. Throws when
 * the context does not answer (the event is then not acknowledged and comes again).
 */
export type RecordSource = (workspaceId: string, event: PublicEvent) => Promise<Record<string, unknown>>;

/** Time the owning context has to answer a read; past it the event is retried later. */
export const READ_DEADLINE_MS = 5_000;

/**
 * A RecordSource over the peers' clients: each resource read with its context's Get RPC and decoded
 * by kit's recordReader (the gateway's decoding). A record that no longer exists (deleted before the
 * event was consumed) is `{id, deleted: true}`, like a deletion's.
 */
export function peerRecordSource(
  apis: Readonly<Record<OwningContext, ContextApi<any, any>>>,
  clients: Readonly<Record<OwningContext, ServiceClient<any>>>,
): RecordSource {
  const readers = new Map<string, ReturnType<typeof recordReader>>();
  for (const { context, resource } of SOURCE_RESOURCES) {
    const route = apis[context].routes.find((r: { spec: { name: string } }) => r.spec.name === resource);
    if (!route) throw new Error(`webhooks: ${context} routes no ${resource}`);
    readers.set(`${context}/${resource}`, recordReader(clients[context], route.spec));
  }
  return async (workspaceId, event) => {
    const read = readers.get(`${event.context}/${event.resource}`)!;
    try {
      return await read(workspaceId, event.id, { deadlineMs: READ_DEADLINE_MS });
    } catch (err) {
      if (err instanceof CrmError && err.code === 'not_found') return goneData(event.id);
      throw err;
    }
  };
}

/**
 * The webhooks context's durable consumer of the event stream: every subject with a public type
 * (public-events.ts). An event becomes one pending delivery, whose body's data is the record read
 * from its owning context at that moment (RecordSource), per enabled endpoint of its workspace
 * that takes its type; the unique key (workspace_id, endpoint_id, event_id) makes a redelivery of
 * the event add nothing. The event's trace context is kept on the delivery, so each attempt's span
 * joins the event's trace.
 */
export const eventStream = defineDurableConsumer({ name: 'webhooks-events', home: 'webhooks', subjects: SOURCE_SUBJECTS });

export function createEnqueue(db: SqlClient, records: RecordSource, now: () => Date = () => new Date()) {
  return async function enqueue(event: Pick<CrmEvent, 'id' | 'type' | 'workspace_id' | 'occurred_at' | 'data'>, traceContext: Record<string, string> = {}): Promise<number> {
    if (!isUuid(event.workspace_id) || !isUuid(event.id)) return 0;
    const found = publicEvent(event);
    if (!found) return 0;
    const { rows: endpoints } = await db.query<{ id: string }>(
      `SELECT id FROM webhook_endpoints
       WHERE workspace_id = $1::uuid AND enabled AND (event_types = '[]'::jsonb OR event_types ? $2::text)`,
      [event.workspace_id, found.type],
    );
    if (!endpoints.length) return 0;
    // The record as it is now, read only when someone will receive it; a failed read throws, so the
    // event is not acknowledged and is consumed again later (nothing lost).
    const data = found.gone ?? (await records(event.workspace_id, found));
    const body = { type: found.type, timestamp: found.timestamp, data };
    const at = now().toISOString();
    const values: string[] = [];
    const params: unknown[] = [event.workspace_id, event.id.toLowerCase(), body.type, JSON.stringify(body), at, JSON.stringify(traceContext)];
    for (const endpoint of endpoints) {
      params.push(newId(), endpoint.id);
      values.push(`($1::uuid, $${params.length - 1}::uuid, $${params.length}::uuid, $2::uuid, $3, $4::jsonb, 'pending', 0, $5::timestamptz, $6::jsonb, $5::timestamptz, $5::timestamptz)`);
    }
    const { rows } = await db.query(
      `INSERT INTO webhook_deliveries (workspace_id, id, endpoint_id, event_id, event_type, payload, status, attempts, next_attempt_at, trace_context, created_at, updated_at)
       VALUES ${values.join(', ')}
       ON CONFLICT (workspace_id, endpoint_id, event_id) DO NOTHING RETURNING id`,
      params,
    );
    return rows.length;
  };
}

export function subscribeEventStream(bus: EventBus, db: SqlClient, records: RecordSource, afterEnqueue?: () => void): Promise<Subscription> {
  const enqueue = createEnqueue(db, records);
  return eventStream.subscribe(bus, db.schema, async (event) => {
    // The bus runs the handler in the event's consume span: its context is the event's trace.
    if ((await enqueue(event, captureTraceContext())) > 0) afterEnqueue?.();
  });
}
