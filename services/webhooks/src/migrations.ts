import { IDEMPOTENCY_MIGRATION_SQL, type Migration, OUTBOX_MIGRATION_SQL } from '@crm/kit';

/**
 * The webhooks schema. Released migrations are never edited; changes come as new entries.
 *
 * Every table is keyed (workspace_id, id) and every unique and foreign key leads with workspace_id
 * (DESIGN.md section 1, "Tenancy in every key"). Index policy as in activities: one btree
 * (workspace_id, key, id) per sort key, filter indexes lead with the filtered column and end with
 * the default order. Timestamps are stored at millisecond precision, the precision the API emits.
 *
 * Beside the declared fields (contract), the service keeps for itself:
 * - on an endpoint, its signing secret and, for 24 h after a rotation, the previous one, each
 *   encrypted with SECRETS_KEY (AES-256-GCM bound to the endpoint: kit's secrets.ts). No column
 *   holds it in clear: the clear secret (the API's `secret`, a create answer field, not a field of
 *   the record) is only ever in the answer of the create or rotation that made it. Endpoints keep no
 *   custom fields. `signing_secret` is written in the create's own
 *   transaction, right after the row, so no committed endpoint lacks it; and
 *   `failing_since`, the start of its current run of failed attempts (cleared by any success and
 *   when the endpoint is enabled again), from which an endpoint whose deliveries have all failed for 5 days is disabled;
 * - on a delivery, its lease (owner and expiry) while a worker sends it, and the event's trace
 *   context, so an attempt's span joins the event's trace.
 * Attempts are not a table of their own: a delivery records how many there were, the outcome of the
 * last one (status code, error, duration, time), and in `attempt_log` each of the most recent 20,
 * oldest first: what a receiver's operator asks.
 */
export const migrations: Migration[] = [
  { id: '001_outbox', sql: OUTBOX_MIGRATION_SQL },
  { id: '002_idempotency_keys', sql: IDEMPOTENCY_MIGRATION_SQL },
  {
    id: '003_webhook_endpoints',
    sql: `
      CREATE TABLE webhook_endpoints (
        workspace_id uuid NOT NULL,
        id uuid NOT NULL,
        svc_uid text,
        url text NOT NULL,
        description text,
        event_types jsonb NOT NULL DEFAULT '[]'::jsonb,
        enabled boolean NOT NULL DEFAULT true,
        disabled_reason text,
        -- The secret is shown once (the create's and rotate_secret's answers); only its sealed form is kept.
        signing_secret jsonb,
        previous_signing_secret jsonb,
        previous_signing_secret_expires_at timestamptz(3),
        failing_since timestamptz(3),
        created_at timestamptz(3) NOT NULL,
        updated_at timestamptz(3) NOT NULL,
        PRIMARY KEY (workspace_id, id),
        CONSTRAINT webhook_endpoints_event_types_check CHECK (jsonb_typeof(event_types) = 'array'),
        CONSTRAINT webhook_endpoints_previous_secret_check CHECK ((previous_signing_secret IS NULL) = (previous_signing_secret_expires_at IS NULL))
      );

      CREATE UNIQUE INDEX webhook_endpoints_svc_uid_key ON webhook_endpoints (workspace_id, svc_uid) WHERE svc_uid IS NOT NULL;
      CREATE INDEX webhook_endpoints_created_at_idx ON webhook_endpoints (workspace_id, created_at, id);
      CREATE INDEX webhook_endpoints_updated_at_idx ON webhook_endpoints (workspace_id, updated_at, id);
      CREATE INDEX webhook_endpoints_enabled_idx ON webhook_endpoints (workspace_id, enabled, created_at, id);
    `,
  },
  {
    id: '004_webhook_deliveries',
    sql: `
      CREATE TABLE webhook_deliveries (
        workspace_id uuid NOT NULL,
        id uuid NOT NULL,
        svc_uid text,
        endpoint_id uuid NOT NULL,
        event_id uuid NOT NULL,
        event_type text NOT NULL,
        payload jsonb NOT NULL,
        status text NOT NULL DEFAULT 'pending',
        attempts integer NOT NULL DEFAULT 0,
        next_attempt_at timestamptz(3),
        last_attempt_at timestamptz(3),
        last_status_code integer,
        last_error text,
        last_duration_ms integer,
        lease_owner text,
        lease_expires_at timestamptz(3),
        trace_context jsonb,
        created_at timestamptz(3) NOT NULL,
        updated_at timestamptz(3) NOT NULL,
        PRIMARY KEY (workspace_id, id),
        -- An event's redelivery to the consumer adds nothing.
        CONSTRAINT webhook_deliveries_event_key UNIQUE (workspace_id, endpoint_id, event_id),
        CONSTRAINT webhook_deliveries_endpoint_fkey FOREIGN KEY (workspace_id, endpoint_id)
          REFERENCES webhook_endpoints (workspace_id, id) ON DELETE CASCADE,
        CONSTRAINT webhook_deliveries_status_check CHECK (status IN ('pending', 'succeeded', 'failed')),
        CONSTRAINT webhook_deliveries_next_attempt_check CHECK ((status = 'pending') = (next_attempt_at IS NOT NULL)),
        CONSTRAINT webhook_deliveries_attempts_check CHECK (attempts >= 0)
      );

      CREATE INDEX webhook_deliveries_created_at_idx ON webhook_deliveries (workspace_id, created_at, id);
      CREATE INDEX webhook_deliveries_endpoint_id_idx ON webhook_deliveries (workspace_id, endpoint_id, created_at, id);
      CREATE INDEX webhook_deliveries_event_type_idx ON webhook_deliveries (workspace_id, event_type, created_at, id);
      CREATE INDEX webhook_deliveries_status_idx ON webhook_deliveries (workspace_id, status, created_at, id);
      -- The worker's claim: due pending deliveries, across workspaces (a system loop, like messaging's).
      CREATE INDEX webhook_deliveries_due_idx ON webhook_deliveries (next_attempt_at) WHERE status = 'pending';
    `,
  },
  {
    // An endpoint enabled again (by hand, after the service disabled it or its owner paused it)
    // starts a new run: the failures before it no longer count towards the 5 days. Done in the
    // table, so every path that enables an endpoint does it.
    id: '005_endpoint_enabled_resets_failures',
    sql: `
      CREATE FUNCTION webhook_endpoints_enabled_resets_failures() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        NEW.failing_since := NULL;
        RETURN NEW;
      END
      $$;
      CREATE TRIGGER webhook_endpoints_enabled_resets_failures
        BEFORE UPDATE OF enabled ON webhook_endpoints
        FOR EACH ROW WHEN (NEW.enabled AND NOT OLD.enabled)
        EXECUTE FUNCTION webhook_endpoints_enabled_resets_failures();
    `,
  },
  {
    id: '006_webhook_deliveries_leased',
    sql: `
      -- The claim counts each endpoint's unexpired leases (its bound across replicas): leased rows only.
      CREATE INDEX webhook_deliveries_leased_idx ON webhook_deliveries (workspace_id, endpoint_id) WHERE lease_expires_at IS NOT NULL;
    `,
  },
  {
    id: '007_webhook_deliveries_attempt_log',
    sql: `
      -- Each attempt's outcome, oldest first, the most recent 20 (the declaration's maxItems): the
      -- worker appends one in the UPDATE that records the attempt and trims there. The deliveries
      -- attempted before this migration keep only their last outcome (last_* columns).
      ALTER TABLE webhook_deliveries ADD COLUMN attempt_log jsonb NOT NULL DEFAULT '[]';
    `,
  },
  {
    id: '008_webhook_deliveries_pending',
    sql: `
      -- The claim: the endpoints with pending deliveries (a loose index scan), then each one's
      -- oldest due in order.
      CREATE INDEX webhook_deliveries_pending_idx ON webhook_deliveries (workspace_id, endpoint_id, next_attempt_at) WHERE status = 'pending';
    `,
  },
];
