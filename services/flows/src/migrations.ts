import { IDEMPOTENCY_MIGRATION_SQL, type Migration, OUTBOX_MIGRATION_SQL } from '@crm/kit';

/**
 * The flows schema. Released migrations are never edited; changes come as new entries.
 *
 * Tenancy in every key: primary keys are (workspace_id, id) and every list index leads with the
 * workspace. Two indexes deliberately do not: the engine's due index and its resume index
 * (enrollments_due_idx, enrollments_resume_idx), which the engine reads across every workspace.
 */
export const migrations: Migration[] = [
  { id: '001_outbox', sql: OUTBOX_MIGRATION_SQL },
  { id: '002_idempotency_keys', sql: IDEMPOTENCY_MIGRATION_SQL },
  {
    id: '003_flows',
    sql: `
      CREATE EXTENSION IF NOT EXISTS pg_trgm WITH SCHEMA public;

      CREATE TABLE flows (
        workspace_id uuid NOT NULL,
        id uuid NOT NULL,
        svc_uid text,
        name text NOT NULL,
        description text,
        status text NOT NULL DEFAULT 'draft' CHECK (status IN ('draft', 'active', 'paused', 'archived')),
        owner_id uuid,
        schedule jsonb,
        -- The graph as the API returns it: nodes with their ids, edges by node key.
        nodes jsonb NOT NULL,
        edges jsonb NOT NULL,
        custom jsonb NOT NULL DEFAULT '{}'::jsonb,
        created_at timestamptz(3) NOT NULL,
        updated_at timestamptz(3) NOT NULL,
        PRIMARY KEY (workspace_id, id)
      );
      CREATE UNIQUE INDEX flows_svc_uid_key ON flows (workspace_id, svc_uid) WHERE svc_uid IS NOT NULL;
      CREATE INDEX flows_created_at_idx ON flows (workspace_id, created_at, id);
      CREATE INDEX flows_updated_at_idx ON flows (workspace_id, updated_at, id);
      CREATE INDEX flows_name_idx ON flows (workspace_id, name, id);
      CREATE INDEX flows_status_idx ON flows (workspace_id, status, id);
      CREATE INDEX flows_status_created_at_idx ON flows (workspace_id, status, created_at, id);
      CREATE INDEX flows_owner_id_idx ON flows (workspace_id, owner_id, created_at, id);
      CREATE INDEX flows_search_idx ON flows USING gin (name public.gin_trgm_ops, description public.gin_trgm_ops);

      CREATE TABLE flow_nodes (
        workspace_id uuid NOT NULL,
        id uuid NOT NULL,
        svc_uid text,
        flow_id uuid NOT NULL,
        key text NOT NULL,
        type text NOT NULL,
        label text,
        config jsonb NOT NULL,
        position int NOT NULL,
        created_at timestamptz(3) NOT NULL,
        updated_at timestamptz(3) NOT NULL,
        PRIMARY KEY (workspace_id, id),
        FOREIGN KEY (workspace_id, flow_id) REFERENCES flows (workspace_id, id) ON DELETE CASCADE
      );
      CREATE UNIQUE INDEX flow_nodes_svc_uid_key ON flow_nodes (workspace_id, svc_uid) WHERE svc_uid IS NOT NULL;
      CREATE UNIQUE INDEX flow_nodes_key_key ON flow_nodes (workspace_id, flow_id, key);
      CREATE INDEX flow_nodes_created_at_idx ON flow_nodes (workspace_id, created_at, id);
      CREATE INDEX flow_nodes_type_idx ON flow_nodes (workspace_id, type, id);
      CREATE INDEX flow_nodes_type_created_at_idx ON flow_nodes (workspace_id, type, created_at, id);
      CREATE INDEX flow_nodes_flow_id_idx ON flow_nodes (workspace_id, flow_id, created_at, id);
      CREATE INDEX flow_nodes_search_idx ON flow_nodes USING gin (label public.gin_trgm_ops);
    `,
  },
  {
    id: '004_enrollments',
    sql: `
      CREATE TABLE enrollments (
        workspace_id uuid NOT NULL,
        id uuid NOT NULL,
        svc_uid text,
        flow_id uuid NOT NULL,
        contact_id uuid NOT NULL,
        status text NOT NULL CHECK (status IN ('active', 'paused', 'completed', 'exited', 'failed')),
        exit_reason text CHECK (exit_reason IN ('replied', 'bounced', 'unsubscribed', 'meeting_booked', 'contact_deleted', 'flow_archived', 'manual')),
        failure_reason text,
        current_node_id uuid,
        next_run_at timestamptz(3),
        enrolled_by uuid,
        enrolled_at timestamptz(3) NOT NULL,
        started_at timestamptz(3) NOT NULL,
        completed_at timestamptz(3),
        custom jsonb NOT NULL DEFAULT '{}'::jsonb,
        created_at timestamptz(3) NOT NULL,
        updated_at timestamptz(3) NOT NULL,
        -- The engine's own state, never part of the API: how often each node was reached (the
        -- visit of its idempotency keys), the task it waits for and how that task ended
        -- (completed, deleted), a branch's deadline, the last email it queued (a branch tests it,
        -- a follow-up is threaded to it), and the transient failures of the current step in a row.
        visits jsonb NOT NULL DEFAULT '{}'::jsonb,
        waiting_task_id uuid,
        task_outcome text CHECK (task_outcome IN ('completed', 'deleted')),
        branch_until timestamptz(3),
        last_sent_email_id uuid,
        retries int NOT NULL DEFAULT 0,
        PRIMARY KEY (workspace_id, id),
        FOREIGN KEY (workspace_id, flow_id) REFERENCES flows (workspace_id, id) ON DELETE CASCADE,
        CONSTRAINT enrollments_exited_has_reason CHECK ((status = 'exited') = (exit_reason IS NOT NULL))
      );
      CREATE UNIQUE INDEX enrollments_svc_uid_key ON enrollments (workspace_id, svc_uid) WHERE svc_uid IS NOT NULL;
      -- One active or paused enrollment per contact and flow; re-enrolling after it ended is allowed.
      CREATE UNIQUE INDEX enrollments_open_key ON enrollments (workspace_id, flow_id, contact_id) WHERE status IN ('active', 'paused');
      -- The engine: due work across every workspace.
      CREATE INDEX enrollments_due_idx ON enrollments (next_run_at) WHERE status = 'active';
      CREATE INDEX enrollments_waiting_task_idx ON enrollments (workspace_id, waiting_task_id) WHERE waiting_task_id IS NOT NULL;
      -- Sort keys of enrollments and flow runs.
      CREATE INDEX enrollments_enrolled_at_idx ON enrollments (workspace_id, enrolled_at, id);
      CREATE INDEX enrollments_updated_at_idx ON enrollments (workspace_id, updated_at, id);
      CREATE INDEX enrollments_next_run_at_idx ON enrollments (workspace_id, next_run_at, id);
      CREATE INDEX enrollments_started_at_idx ON enrollments (workspace_id, started_at, id);
      CREATE INDEX enrollments_completed_at_idx ON enrollments (workspace_id, completed_at, id);
      CREATE INDEX enrollments_status_idx ON enrollments (workspace_id, status, id);
      -- Filters in each list's default order (enrollments by enrolled_at, flow runs by started_at).
      CREATE INDEX enrollments_flow_id_idx ON enrollments (workspace_id, flow_id, enrolled_at, id);
      CREATE INDEX enrollments_contact_id_idx ON enrollments (workspace_id, contact_id, enrolled_at, id);
      CREATE INDEX enrollments_status_enrolled_at_idx ON enrollments (workspace_id, status, enrolled_at, id);
      CREATE INDEX flow_runs_flow_id_idx ON enrollments (workspace_id, flow_id, started_at, id);
      CREATE INDEX flow_runs_contact_id_idx ON enrollments (workspace_id, contact_id, started_at, id);
      CREATE INDEX flow_runs_status_idx ON enrollments (workspace_id, status, started_at, id);
      CREATE INDEX flow_runs_exit_reason_idx ON enrollments (workspace_id, exit_reason, started_at, id);
      CREATE INDEX flow_runs_enrolled_by_idx ON enrollments (workspace_id, enrolled_by, started_at, id);

      CREATE TABLE enrollment_steps (
        workspace_id uuid NOT NULL,
        id uuid NOT NULL,
        svc_uid text,
        enrollment_id uuid NOT NULL,
        flow_id uuid NOT NULL,
        node_id uuid,
        node_key text,
        node_type text,
        visit int NOT NULL,
        outcome text NOT NULL,
        detail text,
        sent_email_id uuid,
        task_id uuid,
        occurred_at timestamptz(3) NOT NULL,
        created_at timestamptz(3) NOT NULL,
        updated_at timestamptz(3) NOT NULL,
        PRIMARY KEY (workspace_id, id),
        FOREIGN KEY (workspace_id, enrollment_id) REFERENCES enrollments (workspace_id, id) ON DELETE CASCADE
      );
      CREATE UNIQUE INDEX enrollment_steps_svc_uid_key ON enrollment_steps (workspace_id, svc_uid) WHERE svc_uid IS NOT NULL;
      CREATE INDEX enrollment_steps_occurred_at_idx ON enrollment_steps (workspace_id, occurred_at, id);
      CREATE INDEX enrollment_steps_enrollment_id_idx ON enrollment_steps (workspace_id, enrollment_id, occurred_at, id);
      -- The analytics funnel: enrollments that reached each node.
      CREATE INDEX enrollment_steps_funnel_idx ON enrollment_steps (workspace_id, flow_id, node_id, enrollment_id);

      -- What contacts did with the emails of their enrollments (a branch's condition), from
      -- messaging's events; bot-flagged opens and clicks never land here.
      CREATE TABLE enrollment_signals (
        workspace_id uuid NOT NULL,
        enrollment_id uuid NOT NULL,
        sent_email_id uuid NOT NULL,
        kind text NOT NULL CHECK (kind IN ('opened', 'clicked', 'replied')),
        at timestamptz(3) NOT NULL,
        PRIMARY KEY (workspace_id, enrollment_id, sent_email_id, kind)
      );

      -- Sends to cancel at messaging because their enrollment exited, written with the exit and
      -- removed once messaging answered: an exit's cancel survives a crash.
      CREATE TABLE pending_cancels (
        workspace_id uuid NOT NULL,
        sent_email_id uuid NOT NULL,
        reason text NOT NULL,
        created_at timestamptz(3) NOT NULL,
        PRIMARY KEY (workspace_id, sent_email_id)
      );
    `,
  },
  {
    id: '005_enrollment_trace',
    sql: `
      -- The W3C trace context of the request that enrolled the contact (traceparent, tracestate):
      -- each step the engine runs is a span of that trace, however much later it runs. '{}' for
      -- enrollments made before this migration: their steps start traces of their own.
      ALTER TABLE enrollments ADD COLUMN trace jsonb NOT NULL DEFAULT '{}'::jsonb;
    `,
  },
  {
    id: '006_enrollments_lean',
    sql: `
      -- Fewer writes per enrollment (a 50,000-member pool is 50,000 rows in one request). A flow
      -- run's started_at is always its enrolled_at, so flow_runs filters, bounds and sorts on
      -- enrolled_at (the declaration's sameAs). The six indexes on started_at go: four repeated
      -- enrolled_at's, two come back on enrolled_at for the filters only flow runs offer. Those
      -- two leave out the rows where their column is null (every new enrollment has no
      -- exit_reason): an equality filter never matches null, so the planner still takes them.
      DROP INDEX enrollments_started_at_idx, flow_runs_flow_id_idx, flow_runs_contact_id_idx, flow_runs_status_idx,
                 flow_runs_exit_reason_idx, flow_runs_enrolled_by_idx;
      CREATE INDEX enrollments_exit_reason_idx ON enrollments (workspace_id, exit_reason, enrolled_at, id) WHERE exit_reason IS NOT NULL;
      CREATE INDEX enrollments_enrolled_by_idx ON enrollments (workspace_id, enrolled_by, enrolled_at, id) WHERE enrolled_by IS NOT NULL;
      -- The foreign key to flows stays for the integrity it gives, although it checks every
      -- inserted row on its own (a sixth of a bulk enrollment's time). The engine's claim does not
      -- lean on it for its plan (CLAIM_DUE_SQL).
    `,
  },
  {
    id: '007_out_of_office',
    sql: `
      -- An enrollment paused by an out-of-office reply (engine/out-of-office.ts): resume_at is when
      -- the engine makes it active again (NULL: not paused that way; a pause by hand has none and
      -- waits for a person), and held_next_run_at when its step was due before the pause, which
      -- the resume restores when it is later (a wait is never cut short). While paused this way the
      -- enrollment's next_run_at is resume_at, so the API shows when it will resume.
      ALTER TABLE enrollments ADD COLUMN resume_at timestamptz(3), ADD COLUMN held_next_run_at timestamptz(3);
      -- The engine's resumes across every workspace, as enrollments_due_idx for its claim.
      CREATE INDEX enrollments_resume_idx ON enrollments (resume_at) WHERE status = 'paused' AND resume_at IS NOT NULL;

      -- The automatic replies already applied, by the id of their event: a redelivered one pauses
      -- nothing again, even after the pause it made is over. One small row per auto-reply, kept.
      CREATE TABLE auto_replies (
        workspace_id uuid NOT NULL,
        event_id uuid NOT NULL,
        contact_id uuid NOT NULL,
        received_at timestamptz(3) NOT NULL,
        returns_on date,
        created_at timestamptz(3) NOT NULL,
        PRIMARY KEY (workspace_id, event_id)
      );
    `,
  },
];
