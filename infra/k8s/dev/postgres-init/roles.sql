-- The two Postgres roles of one service, and its schema. Run it once per Postgres-backed service
-- (people, flows, messaging, activities, webhooks), with psql, as a role that may create roles (the
-- server's admin), in the service's database:
--
--   psql -v ON_ERROR_STOP=1 -v schema=people -v migrate_role=people_migrate -v app_role=people_app \
--        -v migrate_password="$PEOPLE_MIGRATE_PASSWORD" -v app_password="$PEOPLE_APP_PASSWORD" \
--        -f infra/postgres/roles.sql "postgres://admin@db.example/crm"
--
--   <schema>_migrate  owns the schema: creates and alters its tables. Only `crm migrate <service>`
--                     (the Kubernetes init container, the compose `<service>-migrate` one-shot)
--                     connects with it.
--   <schema>_app      the running service (DB_MIGRATE=skip): SELECT, INSERT, UPDATE, DELETE on the
--                     schema's tables and USAGE on its sequences, nothing else. It cannot CREATE,
--                     ALTER or DROP anything, in this schema or any other.
--
-- Idempotent: rerunning it sets the passwords again and changes nothing else. Passwords are
-- optional (omit -v ..._password for a server that authenticates otherwise, e.g. IAM or
-- certificates). It also hands over what an earlier release left in the schema (tables created by
-- a single shared role) to the migrate role, so an existing database can adopt the split.
-- Docker Compose and the dev Kubernetes overlay run it through init-roles.sh at first start;
-- infra/README.md shows it for a managed server. test/e2e/db-roles.e2e.test.ts runs it for real.

-- Quiet on a rerun (no "already exists, skipping" notices).
SET client_min_messages = warning;

SELECT format('CREATE ROLE %I LOGIN', :'migrate_role') WHERE NOT EXISTS (SELECT FROM pg_roles WHERE rolname = :'migrate_role') \gexec
SELECT format('CREATE ROLE %I LOGIN', :'app_role') WHERE NOT EXISTS (SELECT FROM pg_roles WHERE rolname = :'app_role') \gexec
ALTER ROLE :"migrate_role" WITH LOGIN NOSUPERUSER NOCREATEDB NOCREATEROLE NOREPLICATION NOBYPASSRLS;
ALTER ROLE :"app_role" WITH LOGIN NOSUPERUSER NOCREATEDB NOCREATEROLE NOREPLICATION NOBYPASSRLS;
\if :{?migrate_password}
ALTER ROLE :"migrate_role" WITH PASSWORD :'migrate_password';
\endif
\if :{?app_password}
ALTER ROLE :"app_role" WITH PASSWORD :'app_password';
\endif

-- The schema, owned by the migrate role (the service creates none: its role may not).
SELECT format('CREATE SCHEMA IF NOT EXISTS %I AUTHORIZATION %I', :'schema', :'migrate_role') \gexec
ALTER SCHEMA :"schema" OWNER TO :"migrate_role";
SELECT format('ALTER TABLE %I.%I OWNER TO %I', schemaname, tablename, :'migrate_role')
  FROM pg_tables WHERE schemaname = :'schema' AND tableowner <> :'migrate_role' \gexec

-- Both connect; neither may create schemas (no CREATE on the database), nor objects in the public
-- schema: what Postgres 15 and later do by default, done here for older servers too (it concerns
-- the whole database, which belongs to the CRM's services).
SELECT format('GRANT CONNECT ON DATABASE %I TO %I, %I', current_database(), :'migrate_role', :'app_role') \gexec
REVOKE CREATE ON SCHEMA public FROM PUBLIC;

-- The runtime role: data only, on the tables the migrate role creates from now on and on those
-- that exist already.
GRANT USAGE ON SCHEMA :"schema" TO :"app_role";
ALTER DEFAULT PRIVILEGES FOR ROLE :"migrate_role" IN SCHEMA :"schema" GRANT SELECT, INSERT, UPDATE, DELETE ON TABLES TO :"app_role";
ALTER DEFAULT PRIVILEGES FOR ROLE :"migrate_role" IN SCHEMA :"schema" GRANT USAGE, SELECT ON SEQUENCES TO :"app_role";
GRANT SELECT, INSERT, UPDATE, DELETE ON ALL TABLES IN SCHEMA :"schema" TO :"app_role";
GRANT USAGE, SELECT ON ALL SEQUENCES IN SCHEMA :"schema" TO :"app_role";

-- Extensions the migrations use (people's and activities' trigram indexes), created here because
-- creating one needs more than the migrate role has. Their migrations say IF NOT EXISTS.
CREATE EXTENSION IF NOT EXISTS pg_trgm WITH SCHEMA public;
