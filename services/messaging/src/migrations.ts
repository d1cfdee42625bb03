import { IDEMPOTENCY_MIGRATION_SQL, type Migration, OUTBOX_MIGRATION_SQL } from '@crm/kit';

/**
 * The messaging schema. Released migrations are never edited; changes come as new entries.
 *
 * Tenancy in every key (packages/kit/README.md): every table's primary key is (workspace_id, id) or
 * leads with workspace_id, and every index that serves a list leads with it too, so the schema can
 * be distributed by workspace. Index policy as elsewhere: one (workspace_id, key, id) b-tree per
 * sort key, one (workspace_id, filter, time field, id) per filter, trigram GIN for `q`.
 */
// 006_engagement_ledger's SQL names DESIGN.md, the design notes of the time: released SQL stays as
// it ran. The ledger is described in gateway/README.md, "Timeline and performance".
export const migrations: Migration[] = [
  { id: '001_outbox', sql: OUTBOX_MIGRATION_SQL },
  { id: '002_idempotency_keys', sql: IDEMPOTENCY_MIGRATION_SQL },
  {
    id: '003_sent_emails',
    sql: `
      CREATE EXTENSION IF NOT EXISTS pg_trgm WITH SCHEMA public;

      CREATE TABLE sent_emails (
        workspace_id uuid NOT NULL,
        id uuid NOT NULL,
        svc_uid text,
        contact_id uuid NOT NULL,
        owner_id uuid,
        template_id uuid,
        status text NOT NULL CHECK (status IN ('queued', 'sent', 'bounced', 'failed')),
        provider text CHECK (provider IN ('smtp', 'log')),
        subject text NOT NULL,
        body text NOT NULL,
        body_text text,
        to_email text NOT NULL,
        from_email text NOT NULL,
        from_name text,
        message_id text NOT NULL,
        failure_reason text,
        sent_at timestamptz(3),
        flow_id uuid,
        flow_node_id uuid,
        flow_enrollment_id uuid,
        custom jsonb NOT NULL DEFAULT '{}'::jsonb,
        created_at timestamptz(3) NOT NULL,
        updated_at timestamptz(3) NOT NULL,
        PRIMARY KEY (workspace_id, id),
        CONSTRAINT sent_emails_sent_at_check CHECK ((status = 'sent') <= (sent_at IS NOT NULL))
      );
      CREATE UNIQUE INDEX sent_emails_svc_uid_key ON sent_emails (workspace_id, svc_uid) WHERE svc_uid IS NOT NULL;
      CREATE INDEX sent_emails_sent_at_idx ON sent_emails (workspace_id, sent_at, id);
      CREATE INDEX sent_emails_created_at_idx ON sent_emails (workspace_id, created_at, id);
      CREATE INDEX sent_emails_contact_id_idx ON sent_emails (workspace_id, contact_id, sent_at, id);
      CREATE INDEX sent_emails_owner_id_idx ON sent_emails (workspace_id, owner_id, sent_at, id);
      CREATE INDEX sent_emails_provider_idx ON sent_emails (workspace_id, provider, sent_at, id);
      CREATE INDEX sent_emails_status_idx ON sent_emails (workspace_id, status, sent_at, id);
      CREATE INDEX sent_emails_flow_enrollment_id_idx ON sent_emails (workspace_id, flow_enrollment_id, sent_at, id);
      CREATE INDEX sent_emails_search_idx ON sent_emails USING gin (
        subject public.gin_trgm_ops, to_email public.gin_trgm_ops, from_email public.gin_trgm_ops
      );
      -- Inbound mail names a send by its id alone (Message-ID, VERP address), not its workspace.
      CREATE INDEX sent_emails_id_idx ON sent_emails (id);

      -- The delivery queue: one row per send, kept after delivery (its tracked links answer clicks).
      --   pending    waiting for next_attempt_at;
      --   sending    claimed by a worker until lease_until (it re-checked status and suppression);
      --   committed  the whole message was handed to the SMTP server and only its end-of-data
      --              mark remains: a worker that dies now is taken as delivered, never sent again;
      --   done       delivered, bounced or failed.
      -- A claim moves next_attempt_at to the lease's end, so one index finds both due sends and
      -- sends whose worker died.
      CREATE TABLE deliveries (
        workspace_id uuid NOT NULL,
        sent_email_id uuid NOT NULL,
        state text NOT NULL DEFAULT 'pending' CHECK (state IN ('pending', 'sending', 'committed', 'done')),
        attempts int NOT NULL DEFAULT 0,
        next_attempt_at timestamptz(3) NOT NULL,
        lease_token uuid,
        last_error text,
        links jsonb NOT NULL DEFAULT '[]'::jsonb,
        thread text[] NOT NULL DEFAULT '{}',
        verp boolean NOT NULL DEFAULT true,
        -- Which provider took the message: known once it is handed over (committed).
        provider text CHECK (provider IN ('smtp', 'log')),
        committed_at timestamptz(3),
        PRIMARY KEY (workspace_id, sent_email_id),
        FOREIGN KEY (workspace_id, sent_email_id) REFERENCES sent_emails (workspace_id, id) ON DELETE CASCADE
      );
      CREATE INDEX deliveries_due_idx ON deliveries (next_attempt_at) WHERE state <> 'done';

      -- Addresses that must not be mailed again in a workspace: an unsubscribe or a hard bounce.
      CREATE TABLE suppressions (
        workspace_id uuid NOT NULL,
        email_lower text NOT NULL,
        reason text NOT NULL CHECK (reason IN ('unsubscribed', 'hard_bounce')),
        sent_email_id uuid,
        created_at timestamptz(3) NOT NULL,
        PRIMARY KEY (workspace_id, email_lower)
      );
    `,
  },
  {
    id: '004_email_events_touchpoints',
    sql: `
      CREATE TABLE email_events (
        workspace_id uuid NOT NULL,
        id uuid NOT NULL,
        svc_uid text,
        sent_email_id uuid NOT NULL,
        contact_id uuid NOT NULL,
        event_type text NOT NULL CHECK (event_type IN ('open', 'click', 'reply', 'bounce', 'unsubscribe')),
        occurred_at timestamptz(3) NOT NULL,
        is_bot boolean NOT NULL DEFAULT false,
        url text,
        user_agent text,
        bounce_type text CHECK (bounce_type IN ('hard', 'soft')),
        status_code text,
        detail text,
        flow_id uuid,
        flow_node_id uuid,
        flow_enrollment_id uuid,
        created_at timestamptz(3) NOT NULL,
        updated_at timestamptz(3) NOT NULL,
        PRIMARY KEY (workspace_id, id)
      );
      CREATE UNIQUE INDEX email_events_svc_uid_key ON email_events (workspace_id, svc_uid) WHERE svc_uid IS NOT NULL;
      CREATE INDEX email_events_occurred_at_idx ON email_events (workspace_id, occurred_at, id);
      CREATE INDEX email_events_created_at_idx ON email_events (workspace_id, created_at, id);
      CREATE INDEX email_events_sent_email_id_idx ON email_events (workspace_id, sent_email_id, occurred_at, id);
      CREATE INDEX email_events_contact_id_idx ON email_events (workspace_id, contact_id, occurred_at, id);
      CREATE INDEX email_events_event_type_idx ON email_events (workspace_id, event_type, occurred_at, id);

      CREATE TABLE touchpoints (
        workspace_id uuid NOT NULL,
        id uuid NOT NULL,
        svc_uid text,
        contact_id uuid NOT NULL,
        owner_id uuid,
        channel text NOT NULL CHECK (channel IN ('email', 'chat_app', 'call', 'professional_network')),
        direction text NOT NULL CHECK (direction IN ('inbound', 'outbound')),
        status text NOT NULL DEFAULT 'completed' CHECK (status IN ('completed', 'failed')),
        summary text,
        subject text,
        occurred_at timestamptz(3) NOT NULL,
        source text NOT NULL CHECK (source IN ('manual', 'sent_email', 'email_event', 'inbound_email', 'call_log', 'meeting')),
        source_id uuid,
        custom jsonb NOT NULL DEFAULT '{}'::jsonb,
        created_at timestamptz(3) NOT NULL,
        updated_at timestamptz(3) NOT NULL,
        PRIMARY KEY (workspace_id, id)
      );
      CREATE UNIQUE INDEX touchpoints_svc_uid_key ON touchpoints (workspace_id, svc_uid) WHERE svc_uid IS NOT NULL;
      -- One touchpoint per thing it records, so a redelivered event writes it once.
      CREATE UNIQUE INDEX touchpoints_source_key ON touchpoints (workspace_id, source, source_id) WHERE source_id IS NOT NULL;
      CREATE INDEX touchpoints_occurred_at_idx ON touchpoints (workspace_id, occurred_at, id);
      CREATE INDEX touchpoints_created_at_idx ON touchpoints (workspace_id, created_at, id);
      CREATE INDEX touchpoints_contact_id_idx ON touchpoints (workspace_id, contact_id, occurred_at, id);
      CREATE INDEX touchpoints_owner_id_idx ON touchpoints (workspace_id, owner_id, occurred_at, id);
      CREATE INDEX touchpoints_channel_idx ON touchpoints (workspace_id, channel, occurred_at, id);
      CREATE INDEX touchpoints_direction_idx ON touchpoints (workspace_id, direction, occurred_at, id);
      CREATE INDEX touchpoints_status_idx ON touchpoints (workspace_id, status, occurred_at, id);
      CREATE INDEX touchpoints_search_idx ON touchpoints USING gin (summary public.gin_trgm_ops, subject public.gin_trgm_ops);

      -- Inbound messages already handled, by Message-ID: a mail server that delivers one twice
      -- (a retry after a lost 250) records its reply or bounce once.
      CREATE TABLE inbound_messages (
        workspace_id uuid NOT NULL,
        message_key text NOT NULL,
        received_at timestamptz(3) NOT NULL,
        PRIMARY KEY (workspace_id, message_key)
      );
      CREATE INDEX inbound_messages_received_at_idx ON inbound_messages (received_at);
    `,
  },
  {
    id: '005_templates',
    sql: `
      CREATE TABLE email_templates (
        workspace_id uuid NOT NULL,
        id uuid NOT NULL,
        svc_uid text,
        name text NOT NULL,
        description text,
        subject text NOT NULL,
        body text NOT NULL,
        body_text text,
        custom jsonb NOT NULL DEFAULT '{}'::jsonb,
        created_at timestamptz(3) NOT NULL,
        updated_at timestamptz(3) NOT NULL,
        PRIMARY KEY (workspace_id, id)
      );
      CREATE UNIQUE INDEX email_templates_svc_uid_key ON email_templates (workspace_id, svc_uid) WHERE svc_uid IS NOT NULL;
      CREATE INDEX email_templates_created_at_idx ON email_templates (workspace_id, created_at, id);
      CREATE INDEX email_templates_updated_at_idx ON email_templates (workspace_id, updated_at, id);
      CREATE INDEX email_templates_name_idx ON email_templates (workspace_id, name, id);
      CREATE INDEX email_templates_search_idx ON email_templates USING gin (name public.gin_trgm_ops, subject public.gin_trgm_ops);

      CREATE TABLE chatapp_templates (
        workspace_id uuid NOT NULL,
        id uuid NOT NULL,
        svc_uid text,
        name text NOT NULL,
        description text,
        channel text NOT NULL DEFAULT 'chat_app' CHECK (channel IN ('chat_app', 'professional_network')),
        body text NOT NULL,
        custom jsonb NOT NULL DEFAULT '{}'::jsonb,
        created_at timestamptz(3) NOT NULL,
        updated_at timestamptz(3) NOT NULL,
        PRIMARY KEY (workspace_id, id)
      );
      CREATE UNIQUE INDEX chatapp_templates_svc_uid_key ON chatapp_templates (workspace_id, svc_uid) WHERE svc_uid IS NOT NULL;
      CREATE INDEX chatapp_templates_created_at_idx ON chatapp_templates (workspace_id, created_at, id);
      CREATE INDEX chatapp_templates_updated_at_idx ON chatapp_templates (workspace_id, updated_at, id);
      CREATE INDEX chatapp_templates_name_idx ON chatapp_templates (workspace_id, name, id);
      CREATE INDEX chatapp_templates_channel_idx ON chatapp_templates (workspace_id, channel, created_at, id);
      CREATE INDEX chatapp_templates_search_idx ON chatapp_templates USING gin (name public.gin_trgm_ops);
    `,
  },
  {
    id: '006_engagement_ledger',
    sql: `
      -- The engagement ledger (DESIGN.md, Derived views): one row per thing that happened with a
      -- contact, written with messaging's own records and from activities' events. A row is one fact:
      -- (kind, source_id, action) is unique, so a redelivered event writes nothing. \`metric\` names the
      -- user performance counter the row adds one to, if any.
      CREATE TABLE engagement_ledger (
        workspace_id uuid NOT NULL,
        id uuid NOT NULL,
        kind text NOT NULL CHECK (kind IN ('sent_email', 'email_event', 'touchpoint', 'call_log', 'meeting', 'task')),
        source_id uuid NOT NULL,
        action text NOT NULL DEFAULT '',
        contact_id uuid,
        user_id uuid,
        occurred_at timestamptz(3) NOT NULL,
        summary text NOT NULL,
        payload jsonb NOT NULL DEFAULT '{}'::jsonb,
        metric text CHECK (metric IN ('emails_sent', 'emails_replied', 'emails_opened', 'emails_clicked', 'calls_placed', 'meetings_scheduled', 'tasks_completed')),
        talk_seconds integer NOT NULL DEFAULT 0,
        PRIMARY KEY (workspace_id, id)
      );
      CREATE UNIQUE INDEX engagement_ledger_fact_key ON engagement_ledger (workspace_id, kind, source_id, action);
      -- A contact's timeline, newest first, whole or by kind: a seek after the cursor either way.
      CREATE INDEX engagement_ledger_timeline_idx ON engagement_ledger (workspace_id, contact_id, occurred_at, id);
      CREATE INDEX engagement_ledger_timeline_kind_idx ON engagement_ledger (workspace_id, contact_id, kind, occurred_at, id);
      -- The counted rows of a user by time: the partial hours at a performance window's edges.
      CREATE INDEX engagement_ledger_user_metric_idx ON engagement_ledger (workspace_id, user_id, occurred_at)
        INCLUDE (metric, talk_seconds) WHERE metric IS NOT NULL;

      -- The first open, click and reply of each send: "emails opened" counts emails, not opens.
      CREATE TABLE engagement_firsts (
        workspace_id uuid NOT NULL,
        sent_email_id uuid NOT NULL,
        metric text NOT NULL,
        PRIMARY KEY (workspace_id, sent_email_id, metric)
      );

      -- User performance by whole UTC hour, added to in the transaction of each counted ledger row.
      CREATE TABLE engagement_hourly (
        workspace_id uuid NOT NULL,
        user_id uuid NOT NULL,
        hour timestamptz(3) NOT NULL,
        emails_sent integer NOT NULL DEFAULT 0,
        emails_replied integer NOT NULL DEFAULT 0,
        emails_opened integer NOT NULL DEFAULT 0,
        emails_clicked integer NOT NULL DEFAULT 0,
        calls_placed integer NOT NULL DEFAULT 0,
        call_talk_seconds bigint NOT NULL DEFAULT 0,
        meetings_scheduled integer NOT NULL DEFAULT 0,
        tasks_completed integer NOT NULL DEFAULT 0,
        PRIMARY KEY (workspace_id, user_id, hour)
      );
    `,
  },
  {
    id: '007_delivery_trace',
    sql: `
      -- The W3C trace context of the request that queued the send (traceparent, tracestate), so its
      -- delivery attempts are spans of that trace however much later they run. '{}' for sends queued
      -- before this migration: their attempts start traces of their own.
      ALTER TABLE deliveries ADD COLUMN trace jsonb NOT NULL DEFAULT '{}'::jsonb;
    `,
  },
  {
    id: '008_delivery_attempts',
    sql: `
      -- What a send's delivery attempts came to, on the send's own row so a read of sent_emails shows
      -- it: the attempts made so far, the last failure (the server's answer, or the connection error)
      -- and, while a retry waits, when it goes. The delivery worker writes them with each outcome,
      -- copied from its deliveries row.
      --
      -- 'committed' in deliveries means the end of data may have gone out, not that the message was
      -- delivered: a worker that stops after the end of data and before the server's answer leaves
      -- the send to go again, with the same Message-ID, once its lease runs out (the delivery worker,
      -- gateway/README.md "Delivery, at least once").
      --
      -- Sends that finished before this migration keep attempts NULL (not recorded): copying the
      -- whole history from deliveries would rewrite every row of a large table. Sends still queued
      -- take their delivery's figures now.
      ALTER TABLE sent_emails ADD COLUMN attempts integer;
      ALTER TABLE sent_emails ALTER COLUMN attempts SET DEFAULT 0;
      ALTER TABLE sent_emails ADD COLUMN last_error text;
      ALTER TABLE sent_emails ADD COLUMN next_attempt_at timestamptz(3);
      UPDATE sent_emails s
         SET attempts = d.attempts,
             last_error = d.last_error,
             next_attempt_at = CASE WHEN d.state = 'pending' AND d.attempts > 0 THEN d.next_attempt_at END
        FROM deliveries d
       WHERE d.workspace_id = s.workspace_id AND d.sent_email_id = s.id AND s.status = 'queued'; -- all workspaces: a one-off backfill
    `,
  },
  {
    id: '009_sent_emails_flow_filter',
    sql: `
      -- ?flow_id= on sent_emails (issue #35): a flow's sends, in the list's order, like every filter.
      CREATE INDEX sent_emails_flow_id_idx ON sent_emails (workspace_id, flow_id, sent_at, id);
    `,
  },
];
