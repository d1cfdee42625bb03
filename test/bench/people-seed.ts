import type { SqlClient } from '@crm/kit';

/**
 * Bulk seed of one workspace for the people benchmark, in SQL only (INSERT ... SELECT over
 * generate_series): 10,000 organizations, 1,000,000 contacts, 1,000 pools and 200,000 memberships.
 *
 * Values are varied and skewed the way CRM data is (a few owners and countries hold most contacts)
 * with realistic null rates. The secondary indexes are dropped for the load and rebuilt after it
 * (the usual bulk-load technique: one sorted build per index instead of a million random inserts),
 * then the tables are analysed. Deterministic: setseed() fixes every random() below.
 */
export const SEED_VERSION = 6;

export const SEED_SIZES = {
  organizations: 10_000,
  contacts: 1_000_000,
  pools: 1_000,
  memberships: 200_000,
  /** Pool #1 holds this many; the other pools share the rest. */
  bigPool: 50_150,
  owners: 25,
} as const;

/** Other sizes (the tenancy migration bench seeds fewer contacts); the memberships must split evenly over pools 2 and on. */
export type SeedSizes = { readonly [K in keyof typeof SEED_SIZES]: number };

const FIRST_NAMES = [
  'James', 'Mary', 'Robert', 'Patricia', 'John', 'Jennifer', 'Michael', 'Linda', 'David', 'Elizabeth', 'William', 'Barbara',
  'Richard', 'Susan', 'Joseph', 'Jessica', 'Thomas', 'Sarah', 'Charles', 'Karen', 'Christopher', 'Lisa', 'Daniel', 'Nancy',
  'Matthew', 'Betty', 'Anthony', 'Margaret', 'Mark', 'Sandra', 'Donald', 'Ashley', 'Steven', 'Kimberly', 'Paul', 'Emily',
  'Andrew', 'Donna', 'Joshua', 'Michelle', 'Kenneth', 'Carol', 'Kevin', 'Amanda', 'Brian', 'Dorothy', 'George', 'Melissa',
  'Timothy', 'Deborah', 'Ronald', 'Stephanie', 'Edward', 'Rebecca', 'Jason', 'Sharon', 'Jeffrey', 'Laura', 'Ryan', 'Cynthia',
  'Jacob', 'Kathleen', 'Gary', 'Amy', 'Nicholas', 'Angela', 'Eric', 'Shirley', 'Jonathan', 'Anna', 'Stephen', 'Brenda',
  'Larry', 'Pamela', 'Justin', 'Emma', 'Scott', 'Nicole', 'Brandon', 'Helen', 'Benjamin', 'Samantha', 'Samuel', 'Katherine',
  'Gregory', 'Christine', 'Alexander', 'Debra', 'Frank', 'Rachel', 'Patrick', 'Carolyn', 'Raymond', 'Janet', 'Jack', 'Maria',
  'Ana', 'Luis', 'Sofia', 'Mateo', 'Chen', 'Wei', 'Yuki', 'Hiroshi', 'Priya', 'Arjun', 'Fatima', 'Omar', 'Ingrid', 'Lars',
  'Chiara', 'Luca', 'Zofia', 'Jakub', 'Aoife', 'Cian', 'Amara', 'Kwame', 'Leila', 'Reza',
];
const LAST_NAMES = [
  'Smith', 'Johnson', 'Williams', 'Brown', 'Jones', 'Garcia', 'Miller', 'Davis', 'Rodriguez', 'Martinez', 'Hernandez',
  'Lopez', 'Gonzalez', 'Wilson', 'Anderson', 'Thomas', 'Taylor', 'Moore', 'Jackson', 'Martin', 'Lee', 'Perez', 'Thompson',
  'White', 'Harris', 'Sanchez', 'Clark', 'Ramirez', 'Lewis', 'Robinson', 'Walker', 'Young', 'Allen', 'King', 'Wright',
  'Scott', 'Torres', 'Nguyen', 'Hill', 'Flores', 'Green', 'Adams', 'Nelson', 'Baker', 'Hall', 'Rivera', 'Campbell',
  'Mitchell', 'Carter', 'Roberts', 'Gomez', 'Phillips', 'Evans', 'Turner', 'Diaz', 'Parker', 'Cruz', 'Edwards', 'Collins',
  'Reyes', 'Stewart', 'Morris', 'Morales', 'Murphy', 'Cook', 'Rogers', 'Gutierrez', 'Ortiz', 'Morgan', 'Cooper', 'Peterson',
  'Bailey', 'Reed', 'Kelly', 'Howard', 'Ramos', 'Kim', 'Cox', 'Ward', 'Richardson', 'Watson', 'Brooks', 'Chavez', 'Wood',
  'James', 'Bennett', 'Gray', 'Mendoza', 'Ruiz', 'Hughes', 'Price', 'Alvarez', 'Castillo', 'Sanders', 'Patel', 'Myers',
  'Long', 'Ross', 'Foster', 'Jimenez', 'Muller', 'Schmidt', 'Schneider', 'Fischer', 'Weber', 'Rossi', 'Russo', 'Ferrari',
  'Dubois', 'Laurent', 'Tanaka', 'Suzuki', 'Sato', 'Wang', 'Zhang', 'Li', 'Singh', 'Kumar', 'Silva', 'Santos', 'Oliveira',
  'Kowalski', 'Nowak', 'Jensen', 'Hansen', 'Larsen', 'Okafor', 'Mensah', 'Haddad', 'Cohen', 'Levi', 'Novak', 'Horvat',
];
const WORDS = [
  'Acme', 'Globex', 'Initech', 'Umbrella', 'Stark', 'Wayne', 'Wonka', 'Cyberdyne', 'Soylent', 'Tyrell', 'Hooli', 'Vandelay',
  'Pied', 'Piper', 'Massive', 'Dynamic', 'Aperture', 'Black', 'Mesa', 'Blue', 'Sun', 'North', 'Star', 'Bright', 'Cloud',
  'Data', 'Logic', 'Peak', 'River', 'Stone', 'Iron', 'Silver', 'Quantum', 'Vertex', 'Nimbus', 'Orbit', 'Pixel', 'Summit',
  'Harbor', 'Falcon', 'Lumen', 'Atlas', 'Nova', 'Delta', 'Echo', 'Granite', 'Maple', 'Cedar', 'Oak', 'Pine',
];
const SUFFIXES = ['Labs', 'Systems', 'Group', 'Inc', 'Partners', 'Holdings', 'Solutions', 'Works', 'Analytics', 'Software', 'Capital', 'Health'];
const INDUSTRIES = [
  'software', 'fintech', 'healthcare', 'manufacturing', 'retail', 'logistics', 'education', 'media', 'energy', 'telecom',
  'insurance', 'real_estate', 'consulting', 'biotech', 'government',
];
/** Skewed: the first countries hold most contacts, as a US/EU-centred customer base does. */
const COUNTRIES = [
  'US', 'US', 'US', 'US', 'US', 'US', 'US', 'GB', 'GB', 'GB', 'DE', 'DE', 'FR', 'FR', 'CA', 'CA', 'AU', 'NL', 'ES', 'IT',
  'SE', 'BR', 'IN', 'JP', 'MX', 'IE', 'CH', 'PL', 'SG', 'ZA', 'NO', 'DK', 'BE', 'AT', 'NZ', 'PT', 'FI', 'IL', 'AR', 'KR',
];
const STAGES = ['lead', 'lead', 'lead', 'mql', 'mql', 'sql', 'opportunity', 'customer', 'customer', 'churned'];
const SOURCES = ['website', 'website', 'import', 'import', 'import', 'event', 'referral', 'outbound', 'outbound', 'partner', 'ads'];
const CITIES = [
  'New York', 'San Francisco', 'Austin', 'Chicago', 'Seattle', 'Boston', 'London', 'Manchester', 'Berlin', 'Munich', 'Paris',
  'Lyon', 'Toronto', 'Sydney', 'Amsterdam', 'Madrid', 'Milan', 'Stockholm', 'Sao Paulo', 'Bangalore', 'Tokyo', 'Dublin',
];
const STATES = ['CA', 'NY', 'TX', 'WA', 'MA', 'IL', 'FL', 'ENG', 'BY', 'BE', 'IDF', 'ON', 'NSW', 'NH', 'MD', 'LOM'];

const sqlArray = (values: readonly string[]) => `ARRAY[${values.map((v) => `'${v.replace(/'/g, "''")}'`).join(',')}]::text[]`;
/** One element of an array, chosen by a value in [0, 1). */
const pick = (values: readonly string[], unit: string) => `(${sqlArray(values)})[1 + floor((${unit}) * ${values.length})::int]`;
/** `value`, or null with the given probability. */
const nullable = (probability: number, value: string) => `CASE WHEN random() < ${probability} THEN NULL ELSE ${value} END`;

export interface SeedResult {
  workspaceId: string;
  ownerIds: string[];
  bigPoolId: string;
  seconds: number;
}

/**
 * Seeds `workspaceId` in the (already migrated) schema the client is bound to. Other workspaces'
 * rows are untouched; the workspace's own rows are replaced.
 */
export async function seedPeople(db: SqlClient, workspaceId: string, log: (line: string) => void, sizes: SeedSizes = SEED_SIZES): Promise<SeedResult> {
  const started = Date.now();
  const step = async (label: string, sql: string) => {
    const t = Date.now();
    await db.exec(sql);
    log(`  ${label} (${((Date.now() - t) / 1000).toFixed(1)} s)`);
  };
  const ws = `'${workspaceId}'::uuid`;
  const ownerIds = Array.from({ length: sizes.owners }, (_, i) => `00000000-0000-4000-8000-${String(i + 1).padStart(12, '0')}`);
  const owners = sqlArray(ownerIds);

  // The secondary indexes of the seeded tables: dropped for the load, rebuilt from their own
  // definitions afterwards (constraint indexes stay: they enforce uniqueness during the load).
  const { rows: indexes } = await db.query<{ name: string; definition: string }>(
    `SELECT i.indexname AS name, i.indexdef AS definition
       FROM pg_indexes i
      WHERE i.schemaname = current_schema()
        AND i.tablename IN ('contacts', 'organizations', 'pools', 'pool_contacts')
        AND NOT EXISTS (SELECT 1 FROM pg_constraint c WHERE c.conname = i.indexname AND c.connamespace = current_schema()::regnamespace)`,
  );

  await step(
    'cleared the workspace and dropped secondary indexes',
    `DELETE FROM pool_contacts WHERE workspace_id = ${ws};
     DELETE FROM pools WHERE workspace_id = ${ws};
     DELETE FROM contacts WHERE workspace_id = ${ws};
     DELETE FROM organizations WHERE workspace_id = ${ws};
     ${indexes.map((i) => `DROP INDEX IF EXISTS ${i.name};`).join('\n')}`,
  );

  // Foreign-key triggers are skipped during the load (the generator only makes valid references);
  // this needs a superuser, otherwise the checks simply run.
  await db.exec(`DO $$ BEGIN SET session_replication_role = replica; EXCEPTION WHEN OTHERS THEN NULL; END $$;`).catch(() => undefined);
  await db.exec(`SELECT setseed(0.42)`);

  await step(
    `${sizes.organizations.toLocaleString('en')} organizations`,
    `CREATE TEMP TABLE seed_orgs AS
       SELECT n, gen_random_uuid() AS id FROM generate_series(1, ${sizes.organizations}) AS n;
     INSERT INTO organizations (id, workspace_id, name, domain, website_url, industry, country, created_at, updated_at)
     SELECT o.id, ${ws},
            ${pick(WORDS, 'random()')} || ' ' || ${pick(SUFFIXES, 'random()')} || ' ' || o.n,
            ${nullable(0.1, `lower(${pick(WORDS, 'random()')}) || o.n || '.example'`)},
            ${nullable(0.3, `'https://www.' || lower(${pick(WORDS, 'random()')}) || o.n || '.example'`)},
            ${nullable(0.12, pick(INDUSTRIES, 'random()'))},
            ${nullable(0.05, pick(COUNTRIES, 'random()'))},
            t, t + random() * interval '200 days'
       FROM seed_orgs o, LATERAL (SELECT now() - interval '4 years' + random() * interval '3 years' + o.n * interval '0 s' AS t) AS times;`,
  );

  // Owners: a Zipf-like skew (owner 1 holds about 1/4 of the contacts).
  const owner = `(${owners})[1 + least(${sizes.owners - 1}, floor(${sizes.owners} * power(random(), 2.2))::int)]::uuid`;
  await step(
    `${sizes.contacts.toLocaleString('en')} contacts`,
    `CREATE TEMP TABLE seed_contacts AS
       SELECT n, gen_random_uuid() AS id,
              now() - interval '3 years' + (n::float8 / ${sizes.contacts}) * interval '3 years' + random() * interval '1 hour' AS created_at
         FROM generate_series(1, ${sizes.contacts}) AS n;
     INSERT INTO contacts (id, workspace_id, svc_uid, first_name, last_name, email, phone, title, company_name, company_domain,
                           internal_stage, priority, owner_id, organization_id, source, country, state, city,
                           last_engagement_at, last_touchpoint_at, custom, created_at, updated_at)
     SELECT c.id, ${ws},
            ${nullable(0.8, `'sf-' || c.n`)},
            v.first_name, v.last_name,
            ${nullable(0.1, `lower(coalesce(v.first_name, 'x')) || '.' || lower(coalesce(v.last_name, 'y')) || '.' || c.n || '@' || v.domain`)},
            ${nullable(0.5, `'+1 555 ' || lpad((c.n % 10000000)::text, 7, '0')`)},
            ${nullable(0.4, pick(['CEO', 'CTO', 'VP Sales', 'Head of Marketing', 'Engineer', 'Account Executive', 'Founder', 'Director of Operations'], 'random()'))},
            ${nullable(0.3, `v.company`)},
            ${nullable(0.35, 'v.domain')},
            ${nullable(0.2, pick(STAGES, 'random()'))},
            ${nullable(0.4, 'floor(random() * 101)::int')},
            ${nullable(0.1, owner)},
            ${nullable(0.4, 'o.id')},
            ${nullable(0.15, pick(SOURCES, 'random()'))},
            ${nullable(0.08, pick(COUNTRIES, 'power(random(), 1.3)'))},
            ${nullable(0.4, pick(STATES, 'random()'))},
            ${nullable(0.3, pick(CITIES, 'random()'))},
            CASE WHEN random() < 0.35 THEN c.created_at + random() * (now() - c.created_at) END,
            CASE WHEN random() < 0.7 THEN c.created_at + random() * (now() - c.created_at) END,
            CASE WHEN random() < 0.2 THEN jsonb_build_object('lead_score', floor(random() * 100)::int) ELSE '{}'::jsonb END,
            c.created_at, c.created_at + random() * (now() - c.created_at)
       FROM seed_contacts c
       JOIN seed_orgs o ON o.n = 1 + (c.n::bigint * 7919) % ${sizes.organizations},
            LATERAL (SELECT ${nullable(0.03, pick(FIRST_NAMES, 'random()'))} AS first_name,
                            ${nullable(0.05, pick(LAST_NAMES, 'power(random(), 1.5)'))} AS last_name,
                            lower(${pick(WORDS, 'random()')}) || (c.n % 5000) || '.example' AS domain,
                            ${pick(WORDS, 'random()')} || ' ' || ${pick(SUFFIXES, 'random()')} AS company) AS v;`,
  );

  await step(
    `${sizes.pools.toLocaleString('en')} pools`,
    `CREATE TEMP TABLE seed_pools AS SELECT n, gen_random_uuid() AS id FROM generate_series(1, ${sizes.pools}) AS n;
     INSERT INTO pools (id, workspace_id, name, description, owner_id, visibility, contacts_count, created_at, updated_at)
     SELECT p.id, ${ws}, 'Pool ' || p.n || ' ' || ${pick(WORDS, 'random()')},
            ${nullable(0.5, `'Contacts for campaign ' || p.n`)},
            ${nullable(0.2, `(${owners})[1 + (p.n % ${sizes.owners})]::uuid`)},
            CASE WHEN random() < 0.6 THEN 'private' ELSE 'workspace' END, 0, t, t
       FROM seed_pools p, LATERAL (SELECT now() - interval '2 years' + random() * interval '2 years' + p.n * interval '0 s' AS t) AS times;`,
  );

  // Pool 1 takes every 19th contact; pool p > 1 takes 150 distinct contacts (104729 is prime, so
  // k * 104729 mod 1e6 differs for every k of a pool).
  const perPool = (sizes.memberships - sizes.bigPool) / (sizes.pools - 1);
  await step(
    `${sizes.memberships.toLocaleString('en')} memberships`,
    `INSERT INTO pool_contacts (id, workspace_id, pool_id, contact_id, added_by, added_at, created_at, updated_at)
     SELECT gen_random_uuid(), ${ws}, p.id, c.id, ${nullable(0.3, `(${owners})[1 + (m.k % ${sizes.owners})]::uuid`)}, t, t, t
       FROM (SELECT 1 AS p, k, 1 + (k - 1) * 19 AS n FROM generate_series(1, ${sizes.bigPool}) AS k
             UNION ALL
             SELECT p, k, 1 + (p * 7919 + k * 104729) % ${sizes.contacts} FROM generate_series(2, ${sizes.pools}) AS p,
                    generate_series(1, ${perPool}) AS k) AS m
       JOIN seed_pools p ON p.n = m.p
       JOIN seed_contacts c ON c.n = m.n,
       LATERAL (SELECT now() - interval '1 year' + random() * interval '1 year' + m.k * interval '0 s' AS t) AS times;
     UPDATE pools SET contacts_count = counted.n
       FROM (SELECT pool_id, count(*)::int AS n FROM pool_contacts WHERE workspace_id = ${ws} GROUP BY pool_id) AS counted
      WHERE pools.id = counted.pool_id;`,
  );
  await db.exec(`DO $$ BEGIN SET session_replication_role = origin; EXCEPTION WHEN OTHERS THEN NULL; END $$;`).catch(() => undefined);

  await db.exec(`SET maintenance_work_mem = '512MB'`).catch(() => undefined);
  for (const index of indexes) await step(`index ${index.name}`, index.definition);
  // As autovacuum would soon after a load: statistics, and the visibility map index-only scans use.
  for (const table of ['organizations', 'contacts', 'pools', 'pool_contacts']) await step(`vacuum analyze ${table}`, `VACUUM (ANALYZE) ${table}`);

  const { rows } = await db.query<{ id: string }>(`SELECT id FROM seed_pools WHERE n = 1`);
  const bigPoolId = rows[0]!.id;
  await db.exec(`DROP TABLE seed_orgs; DROP TABLE seed_contacts; DROP TABLE seed_pools;`);
  return { workspaceId, ownerIds, bigPoolId, seconds: (Date.now() - started) / 1000 };
}
