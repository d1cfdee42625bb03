import { mkdirSync } from 'node:fs';
import { DEFAULT_PORTS, type EventBus, type Logger, createLogger, intEnv, optionalEnv, runMigrations } from '@crm/kit';
import { startDirectory } from '@crm/directory';
import { startGateway } from '@crm/gateway';
import { migrations as peopleMigrations, startPeople } from '@crm/people';
import { runAdmin } from './admin';
import { UsageError, parseArgs } from './args';
import { bootstrapDefaultWorkspace } from './bootstrap';
import { type RunMode, dataDir, loadSecret, loadSecretsKey, openBus, openDocumentStore, openSql } from './runtime';

const USAGE = `usage:
  crm start                      all-in-one: gateway and every service in one process
  crm start <component>          one component: gateway | directory | people
  crm migrate [people]           apply database migrations and exit
  crm admin workspace create --name <name>
  crm admin user create --workspace <id> --email <e> --name <full name> --role <owner|admin|member>
  crm admin key create --workspace <id> --scopes <a:read,b:*> [--env test]
  crm admin key revoke <key-id>
  crm admin integration create --workspace <id> --type <type> --name <name> --secret <secret>`;

type Stop = () => Promise<void>;

const directoryAddr = () => optionalEnv('DIRECTORY_ADDR') ?? `127.0.0.1:${DEFAULT_PORTS.directory}`;
const peopleAddr = () => optionalEnv('PEOPLE_ADDR') ?? `127.0.0.1:${DEFAULT_PORTS.people}`;

async function startDirectoryComponent(log: Logger, grpcAddr: string, mode: RunMode): Promise<Stop> {
  const secretsKey = loadSecretsKey(mode);
  const keyPepper = loadSecret('KEY_PEPPER', mode);
  const store = await openDocumentStore(log);
  const running = await startDirectory({ store, secretsKey, keyPepper, grpcAddr, log });
  return async () => {
    await running.stop();
    await store.close();
  };
}

async function startPeopleComponent(
  log: Logger,
  grpcAddr: string,
  bus: EventBus,
  mode: RunMode,
): Promise<{ stop: Stop; address: string }> {
  const cursorSecret = loadSecret('CURSOR_SECRET', mode);
  const db = await openSql(optionalEnv('DB_SCHEMA') ?? 'people', log);
  const running = await startPeople({ db, bus, cursorSecret, grpcAddr, log });
  return {
    address: running.server.address,
    stop: async () => {
      await running.stop();
      await db.close();
    },
  };
}

async function startGatewayComponent(log: Logger | false, addresses: { directory: string; people: string }) {
  return startGateway({
    host: optionalEnv('HOST') ?? '127.0.0.1',
    port: intEnv('PORT', DEFAULT_PORTS.gateway),
    directoryAddr: addresses.directory,
    peopleAddr: addresses.people,
    upstreamDeadlineMs: intEnv('UPSTREAM_TIMEOUT_MS', 5_000),
    logger: log,
  });
}

/** Stops every started part in reverse order on SIGINT/SIGTERM. */
function onShutdown(log: Logger, stops: Stop[]): void {
  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    log.info({ signal }, 'shutting down');
    for (const s of [...stops].reverse()) await s().catch((error: unknown) => log.error({ err: error }, 'error while stopping'));
    const { stopTelemetry } = await import('@crm/kit/telemetry');
    await stopTelemetry();
    process.exit(0);
  };
  process.once('SIGINT', () => void stop('SIGINT'));
  process.once('SIGTERM', () => void stop('SIGTERM'));
}

async function startAllInOne(): Promise<void> {
  const log = createLogger('crm');
  mkdirSync(dataDir(), { recursive: true });
  const stops: Stop[] = [];
  onShutdown(log, stops);
  // One bus for every service in the process, unless NATS_URL points at a real one.
  const bus = await openBus(log, 'all-in-one');
  stops.push(() => bus.close());
  const dirAddr = optionalEnv('DIRECTORY_ADDR') ?? `127.0.0.1:${DEFAULT_PORTS.directory}`;
  stops.push(await startDirectoryComponent(log.child({ component: 'directory' }), dirAddr, 'all-in-one'));
  const people = await startPeopleComponent(
    log.child({ component: 'people' }),
    optionalEnv('PEOPLE_ADDR') ?? '127.0.0.1:0',
    bus,
    'all-in-one',
  );
  stops.push(people.stop);
  const gateway = await startGatewayComponent(log.child({ component: 'gateway' }), { directory: dirAddr, people: people.address });
  stops.push(() => gateway.close());

  const firstKey = await bootstrapDefaultWorkspace(dirAddr);
  process.stdout.write(`CRM API listening on ${gateway.url} (try ${gateway.url}/v1/contacts)\n`);
  if (firstKey) {
    process.stdout.write(
      `First start: created workspace "${firstKey.workspaceName}" (${firstKey.workspaceId}).\n` +
        `Full-scope API key (shown once, store it now):\n  ${firstKey.key}\n`,
    );
  }
}

async function startOne(component: string): Promise<void> {
  const log = createLogger(`crm-${component}`);
  const stops: Stop[] = [];
  onShutdown(log, stops);
  switch (component) {
    case 'directory':
      stops.push(await startDirectoryComponent(log, optionalEnv('GRPC_ADDR') ?? `127.0.0.1:${DEFAULT_PORTS.directory}`, 'component'));
      return;
    case 'people': {
      const bus = await openBus(log, 'component');
      stops.push(() => bus.close());
      const grpcAddr = optionalEnv('GRPC_ADDR') ?? `127.0.0.1:${DEFAULT_PORTS.people}`;
      stops.push((await startPeopleComponent(log, grpcAddr, bus, 'component')).stop);
      return;
    }
    case 'gateway': {
      const gateway = await startGatewayComponent(log, { directory: directoryAddr(), people: peopleAddr() });
      stops.push(() => gateway.close());
      log.info({ url: gateway.url }, 'gateway listening');
      return;
    }
    default:
      throw new UsageError(`unknown component "${component}"; expected gateway, directory or people`);
  }
}

/** Services whose Postgres schema `crm migrate` manages, with their default schema names. */
const MIGRATIONS = { people: { schema: 'people', migrations: peopleMigrations } } as const;

async function migrate(components: string[]): Promise<void> {
  const log = createLogger('crm-migrate');
  const names = components.length ? components : Object.keys(MIGRATIONS);
  for (const name of names) {
    if (!(name in MIGRATIONS)) throw new UsageError(`no migrations for "${name}"; expected ${Object.keys(MIGRATIONS).join(', ')}`);
  }
  for (const name of names as (keyof typeof MIGRATIONS)[]) await migrateOne(log, MIGRATIONS[name]);
}

async function migrateOne(log: Logger, target: (typeof MIGRATIONS)[keyof typeof MIGRATIONS]): Promise<void> {
  const db = await openSql(optionalEnv('DB_SCHEMA') ?? target.schema, log);
  try {
    const applied = await runMigrations(db, target.migrations);
    process.stdout.write(`${JSON.stringify({ schema: db.schema, applied })}\n`);
  } finally {
    await db.close();
  }
}

export async function main(argv: string[]): Promise<void> {
  const args = parseArgs(argv);
  const [command, ...rest] = args.positional;
  try {
    switch (command) {
      case 'start':
        if (rest.length > 1) throw new UsageError('crm start takes at most one component');
        return rest[0] ? await startOne(rest[0]) : await startAllInOne();
      case 'migrate':
        return await migrate(rest);
      case 'admin':
        return await runAdmin({ positional: rest, options: args.options }, directoryAddr());
      case 'help':
      case undefined:
        process.stdout.write(`${USAGE}\n`);
        return;
      default:
        throw new UsageError(`unknown command "${command}"`);
    }
  } catch (error) {
    if (error instanceof UsageError) {
      process.stderr.write(`crm: ${error.message}\n${USAGE}\n`);
      process.exit(2);
    }
    throw error;
  }
}
