import { IDEMPOTENCY_MIGRATION_SQL, type Migration, type MigrationStep, OUTBOX_MIGRATION_SQL, concurrentIndexSteps, constraintIs } from '@crm/kit';

/**
 * The activities schema. Released migrations are never edited; changes come as new entries.
 *
 * Every table is keyed (workspace_id, id) and every unique key leads with workspace_id (DESIGN.md
 * section 1, "Tenancy in every key"), since 008; the tables were created keyed by id.
 *
 * Index policy (as in people): one btree (workspace_id, key, id) per sort key, which the keyset
 * compiler seeks in both directions; filter indexes lead with the filtered column and end with the
 * default order; trigram indexes serve `q`. Timestamps are stored at millisecond precision, the
 * precision the API emits, so a cursor's values compare exactly. CHECK constraints restate the
 * invariants the service enforces, as a last line of defence.
 */
export const migrations: Migration[] = [
  { id: '001_outbox', sql: OUTBOX_MIGRATION_SQL },
  {
    id: '002_tasks',
    sql: `
      CREATE EXTENSION IF NOT EXISTS pg_trgm WITH SCHEMA public;

      CREATE TABLE tasks (
        id uuid PRIMARY KEY,
        workspace_id uuid NOT NULL,
        svc_uid text,
        title text NOT NULL,
        description text,
        status text NOT NULL DEFAULT 'open',
        priority int,
        due_at timestamptz(3),
        assignee_id uuid,
        contact_id uuid,
        organization_id uuid,
        type text,
        suggested_action text,
        flow_enrollment_id uuid,
        completed_at timestamptz(3),
        custom jsonb NOT NULL DEFAULT '{}'::jsonb,
        created_at timestamptz(3) NOT NULL,
        updated_at timestamptz(3) NOT NULL,
        CONSTRAINT tasks_completed_at_check CHECK ((status = 'completed') = (completed_at IS NOT NULL))
      );

      CREATE UNIQUE INDEX tasks_svc_uid_key ON tasks (workspace_id, svc_uid) WHERE svc_uid IS NOT NULL;

      CREATE INDEX tasks_created_at_idx ON tasks (workspace_id, created_at, id);
      CREATE INDEX tasks_updated_at_idx ON tasks (workspace_id, updated_at, id);
      CREATE INDEX tasks_due_at_idx ON tasks (workspace_id, due_at, id);
      CREATE INDEX tasks_priority_idx ON tasks (workspace_id, priority, id);
      CREATE INDEX tasks_status_idx ON tasks (workspace_id, status, id);

      -- The task inbox asks for one assignee's open tasks by due date.
      CREATE INDEX tasks_assignee_id_idx ON tasks (workspace_id, assignee_id, status, due_at, id);
      CREATE INDEX tasks_assignee_id_created_at_idx ON tasks (workspace_id, assignee_id, created_at, id);
      CREATE INDEX tasks_contact_id_idx ON tasks (workspace_id, contact_id, created_at, id);
      CREATE INDEX tasks_organization_id_idx ON tasks (workspace_id, organization_id, created_at, id);
      CREATE INDEX tasks_flow_enrollment_id_idx ON tasks (workspace_id, flow_enrollment_id, created_at, id)
        WHERE flow_enrollment_id IS NOT NULL;

      CREATE INDEX tasks_search_idx ON tasks USING gin (title public.gin_trgm_ops, description public.gin_trgm_ops);

      -- The flow engine's retries: one task per (enrollment, idempotency key), recorded in the
      -- transaction that creates the task. Kept when the task is deleted, so a late retry does not
      -- bring it back.
      CREATE TABLE enrollment_task_keys (
        workspace_id uuid NOT NULL,
        flow_enrollment_id uuid NOT NULL,
        idempotency_key text NOT NULL,
        task_id uuid NOT NULL,
        created_at timestamptz(3) NOT NULL DEFAULT now(),
        PRIMARY KEY (workspace_id, flow_enrollment_id, idempotency_key)
      );
    `,
  },
  {
    id: '003_call_logs',
    sql: `
      CREATE TABLE call_logs (
        id uuid PRIMARY KEY,
        workspace_id uuid NOT NULL,
        svc_uid text,
        contact_id uuid,
        owner_id uuid,
        status text NOT NULL,
        outcome text,
        mode text NOT NULL DEFAULT 'manual',
        notes text,
        started_at timestamptz(3),
        ended_at timestamptz(3),
        duration_seconds int,
        custom jsonb NOT NULL DEFAULT '{}'::jsonb,
        created_at timestamptz(3) NOT NULL,
        updated_at timestamptz(3) NOT NULL,
        CONSTRAINT call_logs_ended_at_check CHECK (ended_at >= started_at),
        CONSTRAINT call_logs_duration_seconds_check CHECK (duration_seconds >= 0)
      );

      CREATE UNIQUE INDEX call_logs_svc_uid_key ON call_logs (workspace_id, svc_uid) WHERE svc_uid IS NOT NULL;

      CREATE INDEX call_logs_created_at_idx ON call_logs (workspace_id, created_at, id);
      CREATE INDEX call_logs_started_at_idx ON call_logs (workspace_id, started_at, id);
      CREATE INDEX call_logs_ended_at_idx ON call_logs (workspace_id, ended_at, id);
      CREATE INDEX call_logs_duration_seconds_idx ON call_logs (workspace_id, duration_seconds, id);
      CREATE INDEX call_logs_updated_at_idx ON call_logs (workspace_id, updated_at, id);

      CREATE INDEX call_logs_contact_id_idx ON call_logs (workspace_id, contact_id, created_at, id);
      CREATE INDEX call_logs_owner_id_idx ON call_logs (workspace_id, owner_id, created_at, id);

      CREATE INDEX call_logs_search_idx ON call_logs USING gin (notes public.gin_trgm_ops);
    `,
  },
  {
    id: '004_meetings',
    sql: `
      CREATE TABLE meetings (
        id uuid PRIMARY KEY,
        workspace_id uuid NOT NULL,
        svc_uid text,
        contact_id uuid,
        owner_id uuid,
        status text NOT NULL DEFAULT 'scheduled',
        outcome text,
        title text NOT NULL,
        description text,
        location text,
        scheduled_start timestamptz(3) NOT NULL,
        scheduled_end timestamptz(3) NOT NULL,
        custom jsonb NOT NULL DEFAULT '{}'::jsonb,
        created_at timestamptz(3) NOT NULL,
        updated_at timestamptz(3) NOT NULL,
        CONSTRAINT meetings_scheduled_end_check CHECK (scheduled_end > scheduled_start)
      );

      CREATE UNIQUE INDEX meetings_svc_uid_key ON meetings (workspace_id, svc_uid) WHERE svc_uid IS NOT NULL;

      CREATE INDEX meetings_scheduled_start_idx ON meetings (workspace_id, scheduled_start, id);
      CREATE INDEX meetings_scheduled_end_idx ON meetings (workspace_id, scheduled_end, id);
      CREATE INDEX meetings_created_at_idx ON meetings (workspace_id, created_at, id);
      CREATE INDEX meetings_updated_at_idx ON meetings (workspace_id, updated_at, id);

      CREATE INDEX meetings_contact_id_idx ON meetings (workspace_id, contact_id, scheduled_start, id);
      CREATE INDEX meetings_owner_id_idx ON meetings (workspace_id, owner_id, scheduled_start, id);
      CREATE INDEX meetings_status_idx ON meetings (workspace_id, status, scheduled_start, id);

      CREATE INDEX meetings_search_idx ON meetings USING gin (
        title public.gin_trgm_ops, description public.gin_trgm_ops, location public.gin_trgm_ops
      );
    `,
  },
  // Idempotency-Key records, written in the transaction of the change they answer (kit/idempotency).
  { id: '005_idempotency_keys', sql: IDEMPOTENCY_MIGRATION_SQL },
  {
    // The flow engine's task keys now live with every other idempotency key (kit/idempotency:
    // CreateEnrollmentTask runs under the engine's key, origin "flows").
    id: '006_retire_enrollment_task_keys',
    sql: `DROP TABLE IF EXISTS enrollment_task_keys`,
  },
  {
    // The filters that had no index in the default order: a filtered list seeks (workspace_id,
    // filter, time field, id) instead of walking the time index and discarding rows, so a deep
    // page of `?status=open` costs what the first one costs (the parity test asks for one per filter).
    id: '007_filter_indexes',
    sql: `
      CREATE INDEX tasks_status_created_at_idx ON tasks (workspace_id, status, created_at, id);
      CREATE INDEX tasks_priority_created_at_idx ON tasks (workspace_id, priority, created_at, id);
      CREATE INDEX tasks_type_created_at_idx ON tasks (workspace_id, type, created_at, id);
      CREATE INDEX tasks_suggested_action_created_at_idx ON tasks (workspace_id, suggested_action, created_at, id);
      CREATE INDEX call_logs_status_created_at_idx ON call_logs (workspace_id, status, created_at, id);
      CREATE INDEX call_logs_outcome_created_at_idx ON call_logs (workspace_id, outcome, created_at, id);
      CREATE INDEX call_logs_mode_created_at_idx ON call_logs (workspace_id, mode, created_at, id);
      CREATE INDEX meetings_outcome_scheduled_start_idx ON meetings (workspace_id, outcome, scheduled_start, id);
    `,
  },
  {
    // Tenancy in every key (DESIGN.md section 1): each table's primary key becomes (workspace_id,
    // id) without blocking writes for long. The new unique index is built CONCURRENTLY, then one
    // short transaction per table swaps the primary key onto it (a catalog change: the table's
    // ACCESS EXCLUSIVE lock for milliseconds, given up after 2 s, so it never queues writers behind
    // a long transaction, and tried again). No other table references these.
    id: '008_tenancy_keys',
    transaction: false,
    steps: ['tasks', 'call_logs', 'meetings'].flatMap((table): MigrationStep[] => {
      const keyed = constraintIs(table, `${table}_pkey`, 'PRIMARY KEY (workspace_id, id)');
      return [
        ...concurrentIndexSteps({ name: `${table}_pkey_new`, unique: true, on: `${table} (workspace_id, id)`, doneIf: keyed }),
        {
          name: `swap ${table}_pkey`,
          skipIf: keyed,
          sql: `
            SET LOCAL lock_timeout = '2s';
            ALTER TABLE ${table} DROP CONSTRAINT ${table}_pkey, ADD CONSTRAINT ${table}_pkey PRIMARY KEY USING INDEX ${table}_pkey_new;
          `,
        },
      ];
    }),
  },
];
