#!/bin/sh
# First start of a development Postgres (docker-entrypoint-initdb.d, in Docker Compose and the dev
# Kubernetes overlay): the migrate and app roles of every Postgres-backed service, from roles.sql.
# Development passwords: one for every migrate role, one for every app role (DB_MIGRATE_PASSWORD,
# DB_APP_PASSWORD). Production runs roles.sql itself with a password per role (infra/README.md).
set -eu
ROLES_SQL="${ROLES_SQL:-/etc/crm/postgres/roles.sql}"
for service in ${CRM_DB_SERVICES:-people flows messaging activities webhooks}; do
  psql -v ON_ERROR_STOP=1 --no-psqlrc --username "$POSTGRES_USER" --dbname "$POSTGRES_DB" \
    -v schema="$service" -v migrate_role="${service}_migrate" -v app_role="${service}_app" \
    -v migrate_password="$DB_MIGRATE_PASSWORD" -v app_password="$DB_APP_PASSWORD" \
    -f "$ROLES_SQL"
done
