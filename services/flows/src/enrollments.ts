import {
  type Clock,
  CrmError,
  type CursorCodec,
  type FieldValue,
  type ResourceStore,
  type ServiceClient,
  type SqlClient,
  type SqlQueryable,
  captureTraceContext,
  createResourceStore,
  createTransactionRunner,
  isUuid,
  newId,
} from '@crm/kit';
import { FlowsError, FlowsErrorCode, MAX_ENROLL_CONTACTS, enrollments } from '@crm/flows-contract';
import { FlowsEvents, type MessagingServiceDefinition, type PeopleServiceDefinition } from '@crm/proto';
import { createdEvent, endEvent, exitEnrollments, insertSteps } from './engine/enrollment-records';
import { endOutOfOfficePause } from './engine/out-of-office';
import { type FlowCache, type LoadedFlow } from './engine/runnable-flow';
import { type StepResult, enterFlow, newEnrollmentState } from './engine/step';

/**
 * Enrollments (gateway/README.md, Flows, "Enrolling" and "Many at once"): a contact in a flow, one
 * at a time (`POST /v1/enrollments`) or many (`POST /v1/flows/{id}/enrollments`, up to 500 contacts
 * or a whole pool). A new enrollment stands at the flow's entry node, entered now. Into a flow in
 * any status but archived (409); one active or paused enrollment per contact and flow (409).
 *
 * PATCH `{status}`: active ⇄ paused, active|paused → exited (`manual`); completed, exited and
 * failed are final (409). The flow and the contact of an enrollment never change. On an
 * enrollment an out-of-office reply paused, `active` resumes it now and `paused` keeps it paused
 * until a person resumes it (`engine/out-of-office.ts`).
 */
/** Pool members fetched per call to people, and enrollments written per statement. */
const POOL_PAGE = 10_000;
const INSERT_CHUNK = 5_000;
/** Addresses per suppression check (messaging's limit). */
const SUPPRESSION_CHUNK = 10_000;
/**
 * A bulk enrollment at least this large refreshes the table's statistics at once rather than at
 * autovacuum's next pass: until then the planner takes a new flow for a handful of rows and the
 * engine's claim reads the whole flow and sorts it (130 ms a claim at 100,000) instead of seeking
 * its due index.
 */
const ANALYZE_AFTER = 5_000;

const TRANSITIONS: Record<string, readonly string[]> = {
  active: ['paused', 'exited'],
  paused: ['active', 'exited'],
  completed: [],
  exited: [],
  failed: [],
};

export interface EnrollContactsResult {
  enrolled: string[];
  already_enrolled: string[];
  not_found: string[];
  suppressed: string[];
}

export interface Enrollments {
  store: ResourceStore;
  enroll(ctx: { workspaceId: string; actorUserId?: string }, flowId: string, target: { contactIds: string[] } | { poolId: string }): Promise<EnrollContactsResult>;
}

export interface EnrollmentsDeps {
  db: SqlClient;
  cursors: CursorCodec;
  afterCommit: () => void;
  clock: Clock;
  flows: FlowCache;
  people: ServiceClient<PeopleServiceDefinition>;
  messaging: ServiceClient<MessagingServiceDefinition>;
  /** New due work for the engine. */
  onEnrolled: () => void;
  /** Enrollments exited by hand: their sends are to be cancelled. */
  onExits: () => void;
  /** Pool members per page and enrollments per statement of a bulk enrollment (tests make them small). */
  bulk?: { poolPage?: number; insertChunk?: number };
}

interface Ref {
  id: string;
  email?: string;
}

/** The flow to enroll into, locked against a concurrent archive for the rest of the transaction. */
async function enrollableFlow(tx: SqlQueryable, flows: FlowCache, workspaceId: string, flowId: string, field: string): Promise<LoadedFlow> {
  const { rows } = await tx.query(`SELECT 1 FROM flows WHERE workspace_id = $1::uuid AND id = $2::uuid FOR SHARE`, [workspaceId, flowId]);
  const flow = rows.length ? await flows.get(tx, workspaceId, flowId) : undefined;
  if (!flow) throw FlowsError.field(FlowsErrorCode.UnknownReference, field, 'no flow with this id in the workspace');
  if (flow.status === 'archived') throw FlowsError.field(FlowsErrorCode.FlowArchived, field, 'the flow is archived');
  return flow;
}

/** Where a new enrollment starts: the row's engine columns and the history of its entry. */
function entryOf(flow: LoadedFlow, workspaceId: string, id: string, contactId: string, now: Date): StepResult {
  return enterFlow(flow, newEnrollmentState({ workspaceId, id, flowId: flow.id, contactId }), now);
}

export function createEnrollments(deps: EnrollmentsDeps): Enrollments {
  const { db, clock, flows, people, messaging } = deps;
  const transactions = createTransactionRunner(db, deps.afterCommit);
  const poolPage = deps.bulk?.poolPage ?? POOL_PAGE;
  const insertChunk = deps.bulk?.insertChunk ?? INSERT_CHUNK;

  /** The given contacts that exist, with their addresses. */
  async function refsOf(workspaceId: string, ids: readonly string[]): Promise<Ref[]> {
    if (!ids.length) return [];
    const { contacts } = await people.call('ListContactRefs', { workspace_id: workspaceId, contact_ids: [...ids] });
    return contacts.map((c) => ({ id: c.id, ...(c.email ? { email: c.email } : {}) }));
  }

  async function poolRefs(workspaceId: string, poolId: string): Promise<Ref[]> {
    const out: Ref[] = [];
    let after = '';
    for (;;) {
      const page = await people.call('ListContactRefs', { workspace_id: workspaceId, pool_id: poolId, after, limit: poolPage });
      for (const c of page.contacts) out.push({ id: c.id, ...(c.email ? { email: c.email } : {}) });
      if (!page.next_after) return out;
      after = page.next_after;
    }
  }

  /** The addresses among these that the workspace suppressed (lower-cased). */
  async function suppressedOf(workspaceId: string, refs: readonly Ref[]): Promise<Set<string>> {
    const emails = [...new Set(refs.flatMap((r) => (r.email ? [r.email.toLowerCase()] : [])))];
    const out = new Set<string>();
    for (let i = 0; i < emails.length; i += SUPPRESSION_CHUNK) {
      const { suppressed } = await messaging.call('CheckSuppressions', { workspace_id: workspaceId, emails: emails.slice(i, i + SUPPRESSION_CHUNK) });
      for (const e of suppressed) out.add(e.toLowerCase());
    }
    return out;
  }

  const store = createResourceStore({
    db,
    spec: enrollments,
    cursors: deps.cursors,
    afterCommit: deps.afterCommit,
    async beforeWrite(write): Promise<Record<string, FieldValue>> {
      const { fields, current, ctx, tx } = write;
      const now = clock.now();
      if (write.mode === 'update') {
        for (const key of ['flow_id', 'contact_id'] as const) {
          if (fields[key] !== undefined && fields[key] !== current![key]) {
            throw FlowsError.field(FlowsErrorCode.InvalidTransition, key, 'an enrollment never moves to another flow or contact: enroll anew');
          }
        }
        if (fields.status === undefined || fields.status === current!.status) return {};
        const allowed = TRANSITIONS[String(current!.status)] ?? [];
        if (!allowed.includes(String(fields.status))) {
          throw FlowsError.field(FlowsErrorCode.InvalidTransition, 'status', `a ${current!.status} enrollment cannot become ${fields.status}`);
        }
        // Exiting by hand goes through exitEnrollments (history, cancels, event) after the row is written.
        return fields.status === 'exited' ? { status: current!.status as string } : {};
      }
      const status = (fields.status as string | undefined) ?? 'active';
      if (status !== 'active' && status !== 'paused') throw FlowsError.field(FlowsErrorCode.InvalidTransition, 'status', 'a new enrollment is active or paused');
      const flowId = String(fields.flow_id);
      const contactId = String(fields.contact_id);
      const flow = await enrollableFlow(tx, flows, ctx.workspaceId, flowId, 'flow_id');
      const [ref] = await refsOf(ctx.workspaceId, [contactId]);
      if (!ref) throw FlowsError.field(FlowsErrorCode.UnknownReference, 'contact_id', 'no contact with this id in the workspace');
      if (flow.sendsEmail && ref.email && (await suppressedOf(ctx.workspaceId, [ref])).size) {
        throw FlowsError.field(FlowsErrorCode.Unreachable, 'contact_id', "the contact's address is suppressed (unsubscribed or hard-bounced)");
      }
      const id = String(fields.id ?? newId());
      const entry = entryOf(flow, ctx.workspaceId, id, contactId, now);
      return {
        status: entry.end ? entry.end.status : status,
        enrolled_by: ctx.actorUserId ?? null,
        enrolled_at: now,
        started_at: now,
        current_node_id: entry.state.currentNodeId,
        next_run_at: entry.end ? null : entry.nextRunAt,
        completed_at: entry.end ? now : null,
      };
    },
  });

  return {
    store: {
      ...store,
      async create(ctx, body) {
        const id = newId();
        const created = await store.create(ctx, body, {
          id,
          inTransaction: async (tx, record) => {
            // The entry again, now that the row exists: its visits and the history of an instant end;
            // and the request's trace context, which the engine's steps of it join.
            const flow = await flows.get(tx, ctx.workspaceId, String(record.flow_id));
            const entry = entryOf(flow!, ctx.workspaceId, id, String(record.contact_id), new Date(String(record.started_at)));
            await tx.query(`UPDATE enrollments SET visits = $3::jsonb, trace = $4::jsonb WHERE workspace_id = $1::uuid AND id = $2::uuid`, [
              ctx.workspaceId,
              id,
              JSON.stringify(entry.state.visits),
              JSON.stringify(captureTraceContext()),
            ]);
            await insertSteps(tx, entry.steps.map((step) => ({ workspaceId: ctx.workspaceId, enrollmentId: id, flowId: flow!.id, step })), clock.now());
            // Its creation, then the end of an entry that ends it at once. A contact already open in
            // the flow is a conflict before this runs, so it announces nothing.
            const created = createdEvent(entry.state, new Date(String(record.enrolled_at)));
            return entry.end ? [created, endEvent(entry.state, entry.end, clock.now())] : [created];
          },
        });
        deps.onEnrolled();
        return created;
      },
      async update(ctx, id, body) {
        const status = typeof body === 'object' && body !== null ? (body as { status?: unknown }).status : undefined;
        const exiting = status === 'exited';
        let pauseEnded = false;
        const updated = await store.update(ctx, id, body, {
          inTransaction: async (tx, record) => {
            if (exiting) {
              return record.status === 'active' || record.status === 'paused' ? exitEnrollments(tx, ctx.workspaceId, { ids: [id] }, 'manual', clock.now()) : [];
            }
            if (status === 'active' || status === 'paused') pauseEnded = await endOutOfOfficePause(tx, ctx.workspaceId, id, clock.now());
            return [];
          },
        });
        if (exiting) {
          deps.onExits();
          return store.get(ctx.workspaceId, id);
        }
        if (updated.status === 'active') deps.onEnrolled();
        // The step's own due time came back after the row was read.
        return pauseEnded ? store.get(ctx.workspaceId, id) : updated;
      },
      async delete() {
        throw new CrmError('method_not_allowed', 'an enrollment is never deleted: exit it with PATCH {"status": "exited"}');
      },
    },

    async enroll(ctx, flowId, target) {
      const { workspaceId } = ctx;
      const now = clock.now();
      let wanted: string[] = [];
      let refs: Ref[];
      if ('contactIds' in target) {
        if (!target.contactIds.length || target.contactIds.length > MAX_ENROLL_CONTACTS) {
          throw CrmError.validation([{ field: 'contact_ids', message: `must hold 1 to ${MAX_ENROLL_CONTACTS} contact ids` }]);
        }
        const bad = target.contactIds.findIndex((id) => !isUuid(id));
        if (bad >= 0) throw CrmError.validation([{ field: `contact_ids[${bad}]`, message: 'must be a UUID' }]);
        wanted = [...new Set(target.contactIds.map((id) => id.toLowerCase()))];
        refs = await refsOf(workspaceId, wanted);
      } else {
        try {
          refs = await poolRefs(workspaceId, target.poolId);
        } catch (error) {
          if (error instanceof CrmError && error.code === 'not_found') {
            throw FlowsError.field(FlowsErrorCode.UnknownReference, 'pool_id', 'no pool with this id in the workspace');
          }
          throw error;
        }
      }
      const found = new Set(refs.map((r) => r.id));
      const notFound = wanted.filter((id) => !found.has(id));
      // Read (not locked) to decide whether suppressions matter; the transaction checks it again.
      const peek = await flows.get(db, workspaceId, flowId);
      if (!peek) throw FlowsError.field(FlowsErrorCode.UnknownReference, 'flow_id', 'no flow with this id in the workspace');
      const suppressedEmails = peek.sendsEmail ? await suppressedOf(workspaceId, refs) : new Set<string>();
      const suppressed = refs.filter((r) => r.email && suppressedEmails.has(r.email.toLowerCase())).map((r) => r.id);
      const candidates = refs.filter((r) => !(r.email && suppressedEmails.has(r.email.toLowerCase())));

      const enrolled = await transactions.run(enrollments, workspaceId, async (tx) => {
        const flow = await enrollableFlow(tx, flows, workspaceId, flowId, 'flow_id');
        const out: string[] = [];
        const events = [];
        /** A chunk's new enrollments, and the JSON its insert reads them from. */
        const prepare = (start: number) => {
          const rows = candidates.slice(start, start + insertChunk).map((ref) => ({ ref, entry: entryOf(flow, workspaceId, newId(), ref.id, now) }));
          const payload = rows.map(({ ref, entry }) => ({
            id: entry.state.id,
            // The id of its crm.flows.enrollment.created, should the row be inserted.
            event_id: newId(),
            contact_id: ref.id,
            status: entry.end ? entry.end.status : 'active',
            current_node_id: entry.state.currentNodeId,
            next_run_at: entry.end ? null : (entry.nextRunAt?.toISOString() ?? null),
            completed_at: entry.end ? now.toISOString() : null,
            visits: entry.state.visits,
          }));
          return { rows, json: JSON.stringify(payload) };
        };
        // The request's trace context: the engine's steps of these enrollments join its trace, and
        // consumers of their created events too (the outbox's headers, as kit's writeOutbox keeps them).
        const trace = JSON.stringify(captureTraceContext());
        const at = now.toISOString();
        let next = candidates.length ? prepare(0) : undefined;
        for (let i = 0; next; i += insertChunk) {
          const { rows, json } = next;
          // The rows, and in the same statement the crm.flows.enrollment.created of each row inserted
          // (a contact already open in the flow inserts none): the event createdEvent mints, written
          // to the outbox as kit's writeOutbox writes one. Minting 50,000 events in JavaScript and
          // writing them in statements of their own would cost more than the inserts themselves.
          const inserting = tx.query<{ id: string; contact_id: string }>(
            `WITH t AS (
               SELECT * FROM jsonb_to_recordset($5::jsonb) AS t(id uuid, event_id uuid, contact_id uuid, status text, current_node_id uuid,
                      next_run_at timestamptz, completed_at timestamptz, visits jsonb)
             ), inserted AS (
               INSERT INTO enrollments (workspace_id, id, flow_id, contact_id, status, current_node_id, next_run_at, visits, enrolled_by,
                                        enrolled_at, started_at, completed_at, created_at, updated_at, trace)
               SELECT $1::uuid, t.id, $2::uuid, t.contact_id, t.status, t.current_node_id, t.next_run_at, t.visits, $4::uuid,
                      $3::timestamptz, $3::timestamptz, t.completed_at, $3::timestamptz, $3::timestamptz, $6::jsonb
                 FROM t
               ON CONFLICT (workspace_id, flow_id, contact_id) WHERE status IN ('active', 'paused') DO NOTHING
               RETURNING id, contact_id
             ), announced AS (
               INSERT INTO outbox (id, subject, payload, headers)
               SELECT t.event_id, $7::text,
                      jsonb_build_object('id', t.event_id, 'type', $7::text, 'workspace_id', $1::uuid, 'occurred_at', $8::text,
                        'data', jsonb_build_object('enrollment_id', i.id, 'flow_id', $2::uuid, 'contact_id', i.contact_id, 'occurred_at', $8::text)),
                      $6::jsonb
                 FROM inserted i JOIN t ON t.id = i.id
             )
             SELECT id, contact_id FROM inserted`,
            [workspaceId, flowId, at, ctx.actorUserId ?? null, json, trace, FlowsEvents.EnrollmentCreated, at],
          );
          // The next chunk is built while Postgres inserts this one: the two overlap (60 to 100 ms
          // per 5,000 on this machine; test/bench/HISTORY.md, 2026-11-26, "Flows: three runs, bulk
          // enrollment and the engine's claim").
          const [{ rows: inserted }, following] = await Promise.all([
            inserting,
            Promise.resolve(i + insertChunk).then((start) => (start < candidates.length ? prepare(start) : undefined)),
          ]);
          next = following;
          const insertedIds = new Set(inserted.map((r) => r.id));
          const entered = rows.filter((r) => insertedIds.has(r.entry.state.id));
          await insertSteps(
            tx,
            entered.flatMap(({ entry }) => entry.steps.map((step) => ({ workspaceId, enrollmentId: entry.state.id, flowId, step }))),
            now,
          );
          // The end of an entry that ended at once, after its created event (a later id: the relay
          // publishes in id order).
          for (const { entry } of entered) if (entry.end) events.push(endEvent(entry.state, entry.end, now));
          out.push(...inserted.map((r) => r.contact_id));
        }
        return { value: out, events };
      });
      const enrolledSet = new Set(enrolled);
      if (enrolled.length >= ANALYZE_AFTER) {
        // In the background: the answer does not wait for it, and a role that may not analyze
        // the table gets a warning from Postgres, not an error.
        void db.query('ANALYZE enrollments').catch(() => undefined);
      }
      if (enrolled.length) {
        // The created events went to the outbox by SQL, which the commit does not count: wake the relay.
        deps.afterCommit();
        deps.onEnrolled();
      }
      return {
        enrolled,
        already_enrolled: candidates.filter((r) => !enrolledSet.has(r.id)).map((r) => r.id),
        not_found: notFound,
        suppressed,
      };
    },
  };
}
