import { IDEMPOTENCY_MIGRATION_SQL, type Migration, OUTBOX_MIGRATION_SQL, concurrentIndexSteps, constraintIs } from '@crm/kit';

/**
 * The people schema. Released migrations are never edited; changes come as new entries.
 *
 * Every table is keyed (workspace_id, id) and every unique and foreign key leads with workspace_id
 * (DESIGN.md section 1, "Tenancy in every key"), since 010; the tables were created keyed by id.
 *
 * Index policy: one btree (workspace_id, key, id) per sort key, which the keyset compiler seeks in
 * both directions; trigram indexes for `q`; timestamps are stored at millisecond precision, the
 * precision the API emits, so a cursor's values compare exactly.
 */
/** 010's swap has happened (it changes every key in one transaction, so one of them tells). */
const TENANCY_KEYED = constraintIs('pool_contacts', 'pool_contacts_pkey', 'PRIMARY KEY (workspace_id, id)');

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
  {
    // Organizations, pools and memberships. Memberships reference their pool (removed with it) and
    // their contact; the contact reference is checked at commit, because deleting a contact removes
    // its memberships after the contact row, in the same transaction (see contacts' onDelete). A
    // contact's organization is checked the same way, within the workspace; existing contacts keep
    // whatever organization_id they had (NOT VALID), new and changed values are checked.
    id: '003_organizations_pools',
    sql: `
      CREATE TABLE organizations (
        id uuid PRIMARY KEY,
        workspace_id uuid NOT NULL,
        svc_uid text,
        name text NOT NULL,
        domain text,
        website_url text,
        industry text,
        country text,
        custom jsonb NOT NULL DEFAULT '{}'::jsonb,
        created_at timestamptz(3) NOT NULL,
        updated_at timestamptz(3) NOT NULL,
        CONSTRAINT organizations_workspace_id_id_key UNIQUE (workspace_id, id)
      );
      CREATE UNIQUE INDEX organizations_svc_uid_key ON organizations (workspace_id, svc_uid) WHERE svc_uid IS NOT NULL;
      CREATE INDEX organizations_created_at_idx ON organizations (workspace_id, created_at, id);
      CREATE INDEX organizations_updated_at_idx ON organizations (workspace_id, updated_at, id);
      CREATE INDEX organizations_name_idx ON organizations (workspace_id, name, id);
      CREATE INDEX organizations_industry_idx ON organizations (workspace_id, industry, id);
      CREATE INDEX organizations_industry_created_at_idx ON organizations (workspace_id, industry, created_at, id);
      CREATE INDEX organizations_country_idx ON organizations (workspace_id, country, created_at, id);
      CREATE INDEX organizations_domain_idx ON organizations (workspace_id, domain, created_at, id);
      CREATE INDEX organizations_search_idx ON organizations USING gin (
        name public.gin_trgm_ops, domain public.gin_trgm_ops, website_url public.gin_trgm_ops
      );

      ALTER TABLE contacts ADD CONSTRAINT contacts_organization_fkey
        FOREIGN KEY (workspace_id, organization_id) REFERENCES organizations (workspace_id, id)
        DEFERRABLE INITIALLY DEFERRED NOT VALID;

      CREATE TABLE pools (
        id uuid PRIMARY KEY,
        workspace_id uuid NOT NULL,
        svc_uid text,
        name text NOT NULL,
        description text,
        owner_id uuid,
        visibility text NOT NULL DEFAULT 'private' CHECK (visibility IN ('private', 'workspace')),
        contacts_count int NOT NULL DEFAULT 0 CHECK (contacts_count >= 0),
        custom jsonb NOT NULL DEFAULT '{}'::jsonb,
        created_at timestamptz(3) NOT NULL,
        updated_at timestamptz(3) NOT NULL
      );
      CREATE UNIQUE INDEX pools_svc_uid_key ON pools (workspace_id, svc_uid) WHERE svc_uid IS NOT NULL;
      CREATE INDEX pools_created_at_idx ON pools (workspace_id, created_at, id);
      CREATE INDEX pools_updated_at_idx ON pools (workspace_id, updated_at, id);
      CREATE INDEX pools_name_idx ON pools (workspace_id, name, id);
      CREATE INDEX pools_contacts_count_idx ON pools (workspace_id, contacts_count, id);
      CREATE INDEX pools_owner_id_idx ON pools (workspace_id, owner_id, created_at, id);
      CREATE INDEX pools_visibility_idx ON pools (workspace_id, visibility, created_at, id);
      CREATE INDEX pools_search_idx ON pools USING gin (name public.gin_trgm_ops, description public.gin_trgm_ops);

      CREATE TABLE pool_contacts (
        id uuid PRIMARY KEY,
        workspace_id uuid NOT NULL,
        svc_uid text,
        pool_id uuid NOT NULL REFERENCES pools (id) ON DELETE CASCADE,
        contact_id uuid NOT NULL REFERENCES contacts (id) DEFERRABLE INITIALLY DEFERRED,
        added_by uuid,
        added_at timestamptz(3) NOT NULL,
        custom jsonb NOT NULL DEFAULT '{}'::jsonb,
        created_at timestamptz(3) NOT NULL,
        updated_at timestamptz(3) NOT NULL,
        CONSTRAINT pool_contacts_pool_id_contact_id_key UNIQUE (pool_id, contact_id)
      );
      CREATE UNIQUE INDEX pool_contacts_svc_uid_key ON pool_contacts (workspace_id, svc_uid) WHERE svc_uid IS NOT NULL;
      -- Led by the pool and the contact, not the workspace: they also serve the foreign keys'
      -- look-ups (cascade on pool delete, the check on contact delete); the workspace condition
      -- every query carries is checked on the rows these seeks return.
      CREATE INDEX pool_contacts_pool_id_idx ON pool_contacts (pool_id, added_at, id);
      CREATE INDEX pool_contacts_contact_id_idx ON pool_contacts (contact_id, added_at, id);
      CREATE INDEX pool_contacts_added_by_idx ON pool_contacts (workspace_id, added_by, added_at, id);
      CREATE INDEX pool_contacts_added_at_idx ON pool_contacts (workspace_id, added_at, id);
    `,
  },
  // Idempotency-Key records, written in the transaction of the change they answer (kit/idempotency).
  { id: '004_idempotency_keys', sql: IDEMPOTENCY_MIGRATION_SQL },
  {
    // Indexes the people benchmark's plans asked for (test/bench/README.md, "People: lists at a
    // million contacts", step 4 of its method: every list case a seek). Built in the migration's
    // transaction, which blocks writes to the tables meanwhile (seconds per million rows).
    //
    // Contact lists filtered under the default order (newest first) seek (workspace_id, filter,
    // created_at, id) instead of walking one index and filtering: every filter that had no such
    // index, and owner + country together ("my contacts in this country").
    //
    // A pool's member list: with the workspace ahead of the pool the planner always takes this
    // index; led by the pool alone it preferred (workspace_id, added_at, id) for a big pool and
    // filtered the other pools' rows out (the pool's cascade uses the unique (pool_id, contact_id)
    // index, so nothing else needs the old one).
    id: '005_list_indexes',
    sql: `
      DROP INDEX pool_contacts_pool_id_idx;
      CREATE INDEX pool_contacts_pool_id_idx ON pool_contacts (workspace_id, pool_id, added_at, id);
      CREATE INDEX contacts_internal_stage_created_at_idx ON contacts (workspace_id, internal_stage, created_at, id);
      CREATE INDEX contacts_source_idx ON contacts (workspace_id, source, created_at, id);
      CREATE INDEX contacts_country_idx ON contacts (workspace_id, country, created_at, id);
      CREATE INDEX contacts_state_idx ON contacts (workspace_id, state, created_at, id);
      CREATE INDEX contacts_city_idx ON contacts (workspace_id, city, created_at, id);
      CREATE INDEX contacts_owner_id_country_idx ON contacts (workspace_id, owner_id, country, created_at, id);
    `,
  },
  {
    // A contact's memberships (`?contact_id=`), led by the workspace like every other list index,
    // so the filtered list in its default order is a seek (the parity test asks for one per
    // filter). The old index led by the contact stays: the deferred foreign key checks use it.
    id: '006_pool_contacts_contact_id',
    sql: `CREATE INDEX pool_contacts_workspace_contact_id_idx ON pool_contacts (workspace_id, contact_id, added_at, id)`,
  },
  {
    // \`q\` over contacts searches one stored column (contacts.searchColumn): the four search fields
    // lowered and joined by U+001F, with its own trigram index; the four-column index goes. The
    // expression is searchColumnSql(contacts) as released (people.migrations.test.ts checks it).
    id: '007_contacts_search_text',
    sql: `
      ALTER TABLE contacts ADD COLUMN search_text text GENERATED ALWAYS AS (
        lower(coalesce(first_name, '') || chr(31) || coalesce(last_name, '') || chr(31) || coalesce(email, '') || chr(31) || coalesce(company_name, ''))
      ) STORED;
      CREATE INDEX contacts_search_text_idx ON contacts USING gin (search_text public.gin_trgm_ops);
      DROP INDEX contacts_search_idx;
    `,
  },
  {
    // The newest-first index carries the search column, so a search walks it without reading the
    // table (kit compileSearchWindow; the parity test asks for it). It replaces the plain one: the
    // same seeks for every list, one index to write.
    id: '008_contacts_created_at_search',
    sql: `
      CREATE INDEX contacts_created_at_search_idx ON contacts (workspace_id, created_at, id) INCLUDE (search_text);
      DROP INDEX contacts_created_at_idx;
    `,
  },
  {
    // One index fewer to write per membership: 006's (workspace_id, contact_id, added_at, id) and
    // 003's (contact_id, added_at, id) gave the same seek for `?contact_id=` (a contact id is unique
    // across workspaces; the workspace is checked on the rows it finds), and the foreign key's
    // checks need the one led by the contact. Both indexes are random writes (the members a call
    // adds are scattered over the contacts): a 500-id bulk add spent about 2.4 of its 16 ms in
    // Postgres on this one (test/bench/HISTORY.md, 2026-11-26, "People: where a bulk add's time
    // goes").
    id: '009_drop_pool_contacts_workspace_contact_id',
    sql: `DROP INDEX pool_contacts_workspace_contact_id_idx`,
  },
  {
    // Tenancy in every key (DESIGN.md section 1): every primary key becomes (workspace_id, id), the
    // membership's unique pair and its two foreign keys lead with the workspace. On a populated
    // database without blocking writes for long: the new unique indexes are built CONCURRENTLY, one
    // short transaction swaps the constraints onto them (catalog changes only: it takes the four
    // tables' ACCESS EXCLUSIVE locks for milliseconds, giving up after 2 s so it never queues writers
    // behind a long transaction, and is tried again), the foreign keys come back NOT VALID and are
    // validated afterwards, which reads the memberships without blocking writes. The contact's
    // organization key stays NOT VALID, as 003 made it: contacts keep whatever organization_id they had.
    //
    // A membership's contact look-ups (`?contact_id=`, the key's checks when a contact goes) now
    // seek (workspace_id, contact_id, added_at, id), which replaces the index led by the contact.
    id: '010_tenancy_keys',
    transaction: false,
    steps: [
      ...['contacts', 'organizations', 'pools', 'pool_contacts'].flatMap((table) =>
        concurrentIndexSteps({ name: `${table}_pkey_new`, unique: true, on: `${table} (workspace_id, id)`, doneIf: TENANCY_KEYED }),
      ),
      ...concurrentIndexSteps({
        name: 'pool_contacts_pool_contact_new',
        unique: true,
        on: 'pool_contacts (workspace_id, pool_id, contact_id)',
        doneIf: TENANCY_KEYED,
      }),
      ...concurrentIndexSteps({ name: 'pool_contacts_workspace_contact_id_idx', on: 'pool_contacts (workspace_id, contact_id, added_at, id)' }),
      {
        name: 'swap keys',
        skipIf: TENANCY_KEYED,
        sql: `
          SET LOCAL lock_timeout = '2s';
          -- All four at once, in the order the request path takes them (a contact, then a pool, then
          -- the membership), so the swap never holds one while a writer holding the next waits for it.
          LOCK TABLE contacts, organizations, pools, pool_contacts IN ACCESS EXCLUSIVE MODE;
          ALTER TABLE pool_contacts
            DROP CONSTRAINT pool_contacts_pool_id_fkey,
            DROP CONSTRAINT pool_contacts_contact_id_fkey,
            DROP CONSTRAINT pool_contacts_pool_id_contact_id_key,
            DROP CONSTRAINT pool_contacts_pkey,
            ADD CONSTRAINT pool_contacts_pkey PRIMARY KEY USING INDEX pool_contacts_pkey_new,
            ADD CONSTRAINT pool_contacts_pool_id_contact_id_key UNIQUE USING INDEX pool_contacts_pool_contact_new;
          ALTER TABLE contacts
            DROP CONSTRAINT contacts_organization_fkey,
            DROP CONSTRAINT contacts_pkey,
            ADD CONSTRAINT contacts_pkey PRIMARY KEY USING INDEX contacts_pkey_new;
          ALTER TABLE organizations
            DROP CONSTRAINT organizations_workspace_id_id_key,
            DROP CONSTRAINT organizations_pkey,
            ADD CONSTRAINT organizations_pkey PRIMARY KEY USING INDEX organizations_pkey_new;
          ALTER TABLE pools
            DROP CONSTRAINT pools_pkey,
            ADD CONSTRAINT pools_pkey PRIMARY KEY USING INDEX pools_pkey_new;
          ALTER TABLE contacts ADD CONSTRAINT contacts_organization_fkey
            FOREIGN KEY (workspace_id, organization_id) REFERENCES organizations (workspace_id, id)
            DEFERRABLE INITIALLY DEFERRED NOT VALID;
          ALTER TABLE pool_contacts
            ADD CONSTRAINT pool_contacts_pool_id_fkey
              FOREIGN KEY (workspace_id, pool_id) REFERENCES pools (workspace_id, id) ON DELETE CASCADE NOT VALID,
            ADD CONSTRAINT pool_contacts_contact_id_fkey
              FOREIGN KEY (workspace_id, contact_id) REFERENCES contacts (workspace_id, id) DEFERRABLE INITIALLY DEFERRED NOT VALID;
        `,
      },
      ...['pool_contacts_pool_id_fkey', 'pool_contacts_contact_id_fkey'].map((name) => ({
        name: `validate ${name}`,
        skipIf: `SELECT 1 FROM pg_constraint WHERE conrelid = to_regclass('pool_contacts') AND conname = '${name}' AND convalidated`,
        sql: `ALTER TABLE pool_contacts VALIDATE CONSTRAINT ${name}`,
      })),
      { name: 'drop pool_contacts_contact_id_idx', sql: 'DROP INDEX CONCURRENTLY IF EXISTS pool_contacts_contact_id_idx' },
    ],
  },
];
