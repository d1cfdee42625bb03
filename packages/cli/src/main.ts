import { mkdirSync } from 'node:fs';
import { DEFAULT_LIMITS, DEFAULT_PORTS, type EventBus, type Logger, createLogger, intEnv, optionalEnv, runMigrations } from '@crm/kit';
import { CONTEXTS, describeApi, startGateway } from '@crm/gateway';
import { runAdmin } from './admin';
import { UsageError, parseArgs } from './args';
import { bootstrapDefaultWorkspace } from './bootstrap';
import { SERVICE_COMPONENTS, type ServiceComponent, type Stop, addressEnv } from './components';
import { dataDir, openBus, openSql } from './runtime';

const NAMES = ['gateway', ...SERVICE_COMPONENTS.map((c) => c.name)];
const MIGRATABLE = SERVICE_COMPONENTS.filter((c) => c.database).map((c) => c.name);

const USAGE = `usage:
  crm start                      all-in-one: gateway and every service in one process
  crm start <component>          one component: ${NAMES.join(' | ')}
  ${`crm migrate [${MIGRATABLE.join('|')}]`.padEnd(30)} apply database migrations and exit
  crm openapi                    print the OpenAPI 3.1 description of the API
  crm admin workspace create --name <name>
  crm admin user create --workspace <id> --email <e> --name <full name> --role <owner|admin|member>
  crm admin key create --workspace <id> --scopes <a:read,b:*> [--env test]
  crm admin key revoke <key-id>
  crm admin integration create --workspace <id> --type <type> --name <name> --secret <secret>`;

/** Where a service listens, or is reached: `<NAME>_ADDR`, else its loopback default. */
const addressOf = (component: ServiceComponent) =>
  optionalEnv(addressEnv(component.name)) ?? `127.0.0.1:${component.defaultPort}`;

function startGatewayComponent(log: Logger | false, serviceAddrs: Record<string, string>) {
  const { directory, ...contexts } = serviceAddrs;
  return startGateway({
    host: optionalEnv('HOST') ?? '127.0.0.1',
    port: intEnv('PORT', 8080),
    directoryAddr: directory!,
    serviceAddrs: contexts,
    upstreamDeadlineMs: intEnv('UPSTREAM_TIMEOUT_MS', 5_000),
    redisUrl: optionalEnv('REDIS_URL'),
    limits: {
      keyLimit: intEnv('RATE_LIMIT_KEY', DEFAULT_LIMITS.keyLimit),
      keyWindowMs: intEnv('RATE_LIMIT_KEY_WINDOW_MS', DEFAULT_LIMITS.keyWindowMs),
      workspaceLimit: intEnv('RATE_LIMIT_WORKSPACE', DEFAULT_LIMITS.workspaceLimit),
      workspaceWindowMs: intEnv('RATE_LIMIT_WORKSPACE_WINDOW_MS', DEFAULT_LIMITS.workspaceWindowMs),
    },
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
  const bus: EventBus = await openBus(log, 'all-in-one');
  stops.push(() => bus.close());
  const addresses: Record<string, string> = {};
  for (const component of SERVICE_COMPONENTS) {
    // The directory keeps its well-known address, which `crm admin` reaches; the rest pick free ports.
    const bind = component.name === 'directory' ? addressOf(component) : (optionalEnv(addressEnv(component.name)) ?? '127.0.0.1:0');
    const started = await component.start({ log: log.child({ component: component.name }), grpcAddr: bind, bus, mode: 'all-in-one' });
    stops.push(started.stop);
    addresses[component.name] = started.address;
  }
  const gateway = await startGatewayComponent(log.child({ component: 'gateway' }), addresses);
  stops.push(() => gateway.close());

  const firstKey = await bootstrapDefaultWorkspace(addresses.directory!);
  process.stdout.write(`CRM API listening on ${gateway.url} (try ${gateway.url}/v1/contacts)\n`);
  if (firstKey) {
    process.stdout.write(
      `First start: created workspace "${firstKey.workspaceName}" (${firstKey.workspaceId}).\n` +
        `Full-scope API key (shown once, store it now):\n  ${firstKey.key}\n`,
    );
  }
}

async function startOne(name: string): Promise<void> {
  const log = createLogger(`crm-${name}`);
  const stops: Stop[] = [];
  onShutdown(log, stops);
  if (name === 'gateway') {
    const addresses = Object.fromEntries(SERVICE_COMPONENTS.map((c) => [c.name, addressOf(c)]));
    const gateway = await startGatewayComponent(log, addresses);
    stops.push(() => gateway.close());
    log.info({ url: gateway.url }, 'gateway listening');
    return;
  }
  const component = SERVICE_COMPONENTS.find((c) => c.name === name);
  if (!component) throw new UsageError(`unknown component "${name}"; expected ${NAMES.join(', ')}`);
  const bus = await openBus(log, 'component');
  stops.push(() => bus.close());
  const grpcAddr = optionalEnv('GRPC_ADDR') ?? `127.0.0.1:${component.defaultPort}`;
  stops.push((await component.start({ log, grpcAddr, bus, mode: 'component' })).stop);
}

async function migrate(names: string[]): Promise<void> {
  const log = createLogger('crm-migrate');
  for (const name of names) {
    if (!MIGRATABLE.includes(name)) throw new UsageError(`no migrations for "${name}"; expected ${MIGRATABLE.join(', ')}`);
  }
  for (const component of SERVICE_COMPONENTS) {
    if (!component.database || (names.length && !names.includes(component.name))) continue;
    // DB_SCHEMA overrides the schema only when migrating one service, as a single component reads it.
    const schema = names.length === 1 ? (optionalEnv('DB_SCHEMA') ?? component.database.schema) : component.database.schema;
    const db = await openSql(schema, log);
    try {
      const applied = await runMigrations(db, component.database.migrations);
      process.stdout.write(`${JSON.stringify({ component: component.name, schema: db.schema, applied })}\n`);
    } finally {
      await db.close();
    }
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
      case 'openapi':
        // The description the gateway serves at /openapi.json, without starting anything.
        process.stdout.write(`${JSON.stringify(describeApi(CONTEXTS), null, 2)}\n`);
        return;
      case 'admin':
        return await runAdmin({ positional: rest, options: args.options }, optionalEnv('DIRECTORY_ADDR') ?? `127.0.0.1:${DEFAULT_PORTS.directory}`);
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
