/**
 * `crm … --help` (or `-h`) at every level: the text of the most specific command the words name,
 * on stdout, exit 0. A command's text says what it does, its options and what it prints.
 */

/** Every `crm admin` command, as both the top-level and the admin help list them. */
const ADMIN_COMMANDS = `  crm admin workspace create --name <name>
  crm admin workspace list [--limit <n>]
  crm admin user create --workspace <id> --email <e> --name <full name> --role <owner|admin|member>
  crm admin user invite <user-id>
  crm admin user deactivate <user-id>
  crm admin key create --workspace <id> --scopes <a:read,b:*> [--env test] [--name <name>]
  crm admin key list --workspace <id>
  crm admin key revoke <key-id>
  crm admin integration create --workspace <id> --type <type> --name <name> --secret <secret> [--config '<json>']`;

const ADMIN_TARGET = `The directory is found at DIRECTORY_ADDR when it is set, else where the all-in-one running on
CRM_DATA_DIR records it (<CRM_DATA_DIR>/all-in-one.json), else at 127.0.0.1:50051.`;

const ADMIN_OUTPUT = 'Prints one JSON object per line on stdout; a failure exits non-zero with the reason on stderr.';

/** Every command below the top level, by the words that name it. */
const TOPICS: Record<string, string> = {
  start: `usage: crm start [<component>]

Without a component: the all-in-one, the gateway and every service in one process on embedded
backends (or the servers DATABASE_URL, MONGO_URL, NATS_URL, REDIS_URL name). The first start
creates a workspace and prints a full-scope API key and a set-password link.
With a component: that one component (gateway or a service), configured by its variables.
README.md, "Configuration", lists the variables.`,
  migrate: `usage: crm migrate [<component> ...]

Applies the database migrations of the named Postgres-backed components (all of them when none is
named) and exits. Prints one JSON object per component: {component, schema, applied}.`,
  openapi: `usage: crm openapi

Prints the OpenAPI 3.1 description of the API, the document the gateway serves at /openapi.json,
without starting anything.`,
  check: `usage: crm check addresses [<context> ...]

What can be checked:
  addresses   report stored email addresses that the address rule refuses`,
  'check addresses': `usage: crm check addresses [<context> ...]

Reads the stored addresses of the named contexts (every context that keeps addresses when none is
named) and reports each one the address rule refuses. Exits 1 when any is found.`,
  admin: `usage: crm admin <noun> <verb> [options]

Operator commands, run while the system runs:
${ADMIN_COMMANDS}

${ADMIN_OUTPUT}
${ADMIN_TARGET}
"crm admin <noun> --help" and "crm admin <noun> <verb> --help" describe each one.`,
  'admin workspace': `usage: crm admin workspace <create|list>

  crm admin workspace create --name <name>
  crm admin workspace list [--limit <n>]`,
  'admin workspace create': `usage: crm admin workspace create --name <name>

Creates a workspace (a tenant). Prints {id, name}.
${ADMIN_TARGET}`,
  'admin workspace list': `usage: crm admin workspace list [--limit <n>]

Lists every workspace, oldest first: one JSON object per line, {id, name, created_at}. The
directory is read a page at a time; --limit (1 to 1000, default 100) sets the page size.
${ADMIN_TARGET}`,
  'admin user': `usage: crm admin user <create|invite|deactivate>

  crm admin user create --workspace <id> --email <e> --name <full name> --role <owner|admin|member>
  crm admin user invite <user-id>
  crm admin user deactivate <user-id>`,
  'admin user create': `usage: crm admin user create --workspace <id> --email <e> --name <full name> --role <owner|admin|member>

Creates a user of the workspace. Prints the user. "crm admin user invite" gives them a link to set
a password and sign in to the settings pages.
${ADMIN_TARGET}`,
  'admin user invite': `usage: crm admin user invite <user-id>

Issues a one-time link to set the user's password (an invitation, or a reset of a forgotten one),
valid 24 hours; earlier unused links stop working. Mailed to the user when the workspace has an
enabled smtp integration. Prints {user_id, link, expires_at, mailed}.
${ADMIN_TARGET}`,
  'admin user deactivate': `usage: crm admin user deactivate <user-id>

Deactivates the user: ends their sessions and revokes the keys that act for them. Prints the user.
${ADMIN_TARGET}`,
  'admin key': `usage: crm admin key <create|list|revoke>

  crm admin key create --workspace <id> --scopes <a:read,b:*> [--env test] [--name <name>]
  crm admin key list --workspace <id>
  crm admin key revoke <key-id>`,
  'admin key create': `usage: crm admin key create --workspace <id> --scopes <a:read,b:*> [--env <env>] [--name <name>]

Issues an API key of the workspace. --scopes is a comma-separated list: "*" for every scope, or
<resource>:<read|write|delete|*>. --env is the label in the key (svc_<env>_...), "live" unless
given. Prints {id, key, scopes, workspace_id}: the key is shown this once, store it now.
${ADMIN_TARGET}`,
  'admin key list': `usage: crm admin key list --workspace <id>

Lists every key of the workspace, newest first, active and revoked: one JSON object per line,
{id, workspace_id, name, prefix, scopes, env, user_id, created_by_name, created_at, last_used_at,
revoked_at}. revoked_at is null for an active key. Never the key itself nor its hash.
${ADMIN_TARGET}`,
  'admin key revoke': `usage: crm admin key revoke <key-id>

Revokes the key: requests with it are refused within 5 seconds. Idempotent. Prints {id, revoked}.
${ADMIN_TARGET}`,
  'admin integration': `usage: crm admin integration create --workspace <id> --type <type> --name <name> --secret <secret> [--config '<json>']`,
  'admin integration create': `usage: crm admin integration create --workspace <id> --type <type> --name <name> --secret <secret> [--config '<json>']

Adds an integration to the workspace, such as an smtp server (--type smtp, --secret its password,
--config '{"host":"smtp.example.com","port":587,"username":"ana@acme.test","from_email":"ana@acme.test"}').
Prints the integration, never its secret.
${ADMIN_TARGET}`,
};

/** The top-level usage, naming the components this installation holds. */
export function topUsage(components: readonly string[] | undefined, migratable: readonly string[] | undefined): string {
  const names = components ? ['gateway', ...components].join(' | ') : '<component>';
  const migrate = migratable ? migratable.join('|') : '<component>';
  return `usage:
  crm start                      all-in-one: gateway and every service in one process
  crm start <component>          one component: ${names}
  ${`crm migrate [${migrate}]`.padEnd(30)} apply database migrations and exit
  crm openapi                    print the OpenAPI 3.1 description of the API
  crm check addresses [context]  report stored addresses past the address rule (exit 1 when any)
${ADMIN_COMMANDS}

"crm <command> --help" (or -h) describes a command; "crm admin key create --help" one of its verbs.`;
}

/**
 * The help of the most specific command the words name: `admin key create` → that command's,
 * `admin key nonsense` → `admin key`'s, `user invite <id>` → `user invite`'s. Undefined for the
 * top level (the caller prints topUsage, which needs the installed components).
 */
export function helpFor(words: readonly string[]): string | undefined {
  for (let n = Math.min(words.length, 3); n > 0; n--) {
    const text = TOPICS[words.slice(0, n).join(' ')];
    if (text) return text;
  }
  return undefined;
}
