import { type Migration, OUTBOX_MIGRATION_SQL } from '@crm/kit';

/**
 * The people schema. Released migrations are never edited; changes come as new entries.
 *
 * Index policy: one btree (workspace_id, key, id) per sort key, which the keyset compiler seeks in
 * both directions; trigram indexes for `q`; timestamps are stored at millisecond precision, the
 * precision the API emits, so a cursor's values compare exactly.
 */
export const migrations: Migration[] = [
  { id: '001_outbox', sql: OUTBOX_MIGRATION_SQL },
  {
    id: '002_contacts',
    sql: `
      CREATE EXTENSION IF NOT EXISTS pg_trgm WITH SCHEMA public;

      CREATE TABLE contacts (
        id uuid PRIMARY KEY,
        workspace_id uuid NOT NULL,
        svc_uid text,
        first_name text,
        last_name text,
        email text,
        phone text,
        title text,
        company_name text,
        company_domain text,
        internal_stage text,
        priority int,
        owner_id uuid,
        organization_id uuid,
        source text,
        country text,
        state text,
        city text,
        last_engagement_at timestamptz(3),
        last_touchpoint_at timestamptz(3),
        custom jsonb NOT NULL DEFAULT '{}'::jsonb,
        created_at timestamptz(3) NOT NULL,
        updated_at timestamptz(3) NOT NULL
      );

      CREATE UNIQUE INDEX contacts_email_key ON contacts (workspace_id, lower(email)) WHERE email IS NOT NULL;
      CREATE UNIQUE INDEX contacts_svc_uid_key ON contacts (workspace_id, svc_uid) WHERE svc_uid IS NOT NULL;

      CREATE INDEX contacts_created_at_idx ON contacts (workspace_id, created_at, id);
      CREATE INDEX contacts_updated_at_idx ON contacts (workspace_id, updated_at, id);
      CREATE INDEX contacts_last_engagement_at_idx ON contacts (workspace_id, last_engagement_at, id);
      CREATE INDEX contacts_last_touchpoint_at_idx ON contacts (workspace_id, last_touchpoint_at, id);
      CREATE INDEX contacts_first_name_idx ON contacts (workspace_id, first_name, id);
      CREATE INDEX contacts_last_name_idx ON contacts (workspace_id, last_name, id);
      CREATE INDEX contacts_company_name_idx ON contacts (workspace_id, company_name, id);
      CREATE INDEX contacts_internal_stage_idx ON contacts (workspace_id, internal_stage, id);
      CREATE INDEX contacts_priority_idx ON contacts (workspace_id, priority, id);

      CREATE INDEX contacts_owner_id_idx ON contacts (workspace_id, owner_id, created_at, id);
      CREATE INDEX contacts_organization_id_idx ON contacts (workspace_id, organization_id, created_at, id);
      CREATE INDEX contacts_company_domain_idx ON contacts (workspace_id, company_domain, created_at, id);

      CREATE INDEX contacts_search_idx ON contacts USING gin (
        first_name public.gin_trgm_ops, last_name public.gin_trgm_ops,
        email public.gin_trgm_ops, company_name public.gin_trgm_ops
      );
    `,
  },
];
