import { mkdirSync } from 'node:fs';
import * as path from 'node:path';
import {
  type ConfigOf,
  ConfigError,
  type ConfigSchema,
  DEFAULT_PORTS,
  type EventBus,
  type ListenTarget,
  type Logger,
  addressEnv,
  addressTarget,
  createLogger,
  listenErrorCode,
  listenProblem,
  listenProblems,
  probeListen,
  readConfig,
  runMigrations,
  setting,
} from '@crm/kit';
import type { MetricsListener } from '@crm/kit/telemetry';
import type { GatewaySettings } from '@crm/gateway';
import { runAdmin } from './admin';
import { readAllInOneRecord, writeAllInOneRecord } from './all-in-one-record';
import { UsageError, parseArgs } from './args';
import { helpFor, topUsage } from './help';
import { DEFAULT_OWNER_EMAIL, bootstrapDefaultWorkspace } from './bootstrap';
import { runCheck } from './check';
import type { ServiceComponent, Stop } from './components/component';
import { allComponents, loadComponent } from './components/load';
import { dataDir, openBus, openSql } from './runtime';
import { COMMON, type ComponentName, type RunMode, addressSettings, optionalAddressSettings, sqlSettings } from './settings';

/**
 * Every service a component may dial (`<NAME>_ADDR`), from kit's list of well-known ports. Components
 * themselves are loaded one at a time (components/load.ts): a process, and its image, holds only
 * the code it runs, so the names cannot come from loading every one of them.
 */
const SERVICE_NAMES = (Object.keys(DEFAULT_PORTS) as ComponentName[]).filter((n) => n !== 'gateway');

/** The gateway, loaded only by the processes that run it: a service's image holds no gateway. */
const loadGateway = () => import('@crm/gateway');

/** The top-level usage, naming the components this installation holds (a service's image holds one). */
async function usage(): Promise<string> {
  const components = await allComponents().catch(() => undefined);
  return topUsage(
    components?.map((c) => c.name),
    components?.filter((c) => c.database).map((c) => c.name),
  );
}

async function startGatewayComponent(settings: GatewaySettings, log: Logger | false, serviceAddrs: Record<string, string>) {
  const { directory, ...contexts } = serviceAddrs;
  const { gatewayConfigFrom, startGateway } = await loadGateway();
  return startGateway({ ...gatewayConfigFrom(settings), directoryAddr: directory!, serviceAddrs: contexts, logger: log });
}

/** A variable's value as the user set it (readConfig reads an empty one as unset). */
const givenEnv = (name: string): string | undefined => process.env[name] || undefined;

/** The gateway's port, with the variable that sets it. */
function gatewayTarget(settings: Pick<GatewaySettings, 'HOST' | 'PORT'>): ListenTarget {
  const port = settings.PORT;
  return { variable: 'PORT', value: String(port), isDefault: !givenEnv('PORT'), host: settings.HOST, port };
}

/**
 * Before anything starts: checks every port this process is about to listen on and waits for its
 * /metrics listener, so a port that cannot be taken is one error naming its variable
 * (`PORT=8080: 127.0.0.1:8080 is already in use (EADDRINUSE)`), not a failure half-way up.
 */
async function checkPorts(targets: ListenTarget[], log: Logger): Promise<MetricsListener | undefined> {
  const { metricsListener } = await import('@crm/kit/telemetry');
  const [problems, metrics] = await Promise.all([listenProblems(targets), metricsListener()?.catch((error: Error) => error)]);
  if (metrics instanceof Error) problems.push(metrics.message);
  if (problems.length) {
    throw new ConfigError(problems.length === 1 ? problems[0]! : `${problems.length} ports cannot be listened on:\n  - ${problems.join('\n  - ')}`);
  }
  const served = metrics instanceof Error ? undefined : metrics;
  if (served?.instead) {
    log.warn({ address: served.address }, `METRICS_PORT is not set and ${served.instead} is taken: /metrics is served on ${served.address}`);
  } else if (served) {
    log.info({ address: served.address }, 'metrics served at /metrics');
  }
  return served;
}

/** Runs `bind`; a listen it fails (a port taken since checkPorts) becomes the problem of `target`'s variable. */
async function listeningAs<T>(target: ListenTarget, bind: () => Promise<T>): Promise<T> {
  try {
    return await bind();
  } catch (error) {
    const code = listenErrorCode(error);
    throw code ? new ConfigError(listenProblem(target, code)) : error;
  }
}

/** What is left of the shutdown bound after in-flight work: consumers, pools, the bus, telemetry. */
const SHUTDOWN_RESERVE_MS = 2_000;

/**
 * On SIGINT/SIGTERM, stops every started part in reverse order: each stops accepting work and lets
 * what is in flight finish until `timeoutMs` less a reserve, then closes what it holds. The process
 * exits within `timeoutMs` whatever happens (with code 1 when that bound ran out). A second signal
 * while stopping exits at once (Node's default).
 */
function onShutdown(log: Logger, stops: Stop[], timeoutMs: number): void {
  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    const started = Date.now();
    setTimeout(() => {
      log.error({ signal, timeoutMs }, 'shutdown did not finish in time: exiting');
      process.exit(1);
    }, timeoutMs);
    log.info({ signal }, 'shutting down');
    const drainUntil = started + timeoutMs - Math.min(SHUTDOWN_RESERVE_MS, timeoutMs / 4);
    for (const s of [...stops].reverse()) await s(drainUntil).catch((error: unknown) => log.error({ err: error }, 'error while stopping'));
    const { stopTelemetry } = await import('@crm/kit/telemetry');
    await stopTelemetry(started + timeoutMs - Date.now() - 100);
    log.info({ signal, ms: Date.now() - started }, 'stopped');
    process.exit(0);
  };
  process.once('SIGINT', () => void stop('SIGINT'));
  process.once('SIGTERM', () => void stop('SIGTERM'));
}

/**
 * Every variable the components about to start read, checked in one pass. COMMON and `extra` come
 * back typed here; each component reads its own share typed by its schema (ServiceComponent).
 */
function readSettings<E extends ConfigSchema>(mode: RunMode, components: readonly ServiceComponent[], extra: E): ConfigOf<typeof COMMON & E> {
  return readConfig<typeof COMMON & E>(Object.assign({}, COMMON, extra, ...components.map((c) => c.settings(mode))));
}

async function startAllInOne(): Promise<void> {
  const SERVICE_COMPONENTS = await allComponents();
  const COMPONENT_NAMES = SERVICE_COMPONENTS.map((c) => c.name as ComponentName);
  const { GATEWAY_SETTINGS } = await loadGateway();
  const read = readSettings('all-in-one', SERVICE_COMPONENTS, {
    ...GATEWAY_SETTINGS,
    // The services' gRPC ports are internal to the process: free ones unless told otherwise.
    ...optionalAddressSettings(COMPONENT_NAMES),
    // The default workspace's owner, created on the first start with a link to set their password.
    OWNER_EMAIL: setting.string(DEFAULT_OWNER_EMAIL),
  });
  // Tracking and unsubscribe links point at this process's own gateway unless PUBLIC_URL says otherwise.
  const host = read.HOST;
  const settings = process.env.PUBLIC_URL
    ? read
    : { ...read, PUBLIC_URL: `http://${host === '0.0.0.0' ? '127.0.0.1' : host.includes(':') ? `[${host}]` : host}:${read.PORT}` };
  const log = createLogger('crm', settings.LOG_LEVEL);
  const given = Object.fromEntries(COMPONENT_NAMES.map((n) => [n, settings[addressEnv(n)]]));
  const binds = Object.fromEntries(COMPONENT_NAMES.map((n) => [n, given[n] ?? '127.0.0.1:0']));
  // `crm admin`, another process, finds the directory at its well-known port when that is free, and
  // in the data folder's all-in-one.json whatever port it got.
  const wellKnownDirectory = `127.0.0.1:${DEFAULT_PORTS.directory}`;
  if (!given.directory && !(await probeListen('127.0.0.1', DEFAULT_PORTS.directory))) binds.directory = wellKnownDirectory;
  const targets = Object.fromEntries(COMPONENT_NAMES.map((n) => [n, addressTarget(addressEnv(n), binds[n]!, !given[n])]));
  const metrics = await checkPorts(
    [
      gatewayTarget(settings),
      ...COMPONENT_NAMES.filter((n) => given[n]).map((n) => targets[n]!),
      ...SERVICE_COMPONENTS.flatMap((c) => c.listens?.(settings) ?? []),
    ],
    log,
  );
  mkdirSync(dataDir(settings), { recursive: true });
  const stops: Stop[] = [];
  onShutdown(log, stops, settings.SHUTDOWN_TIMEOUT_MS);
  // One bus for every service in the process, unless NATS_URL points at a real one.
  const bus: EventBus = await openBus(settings, log, 'all-in-one');
  stops.push(() => bus.close());
  const addresses: Record<string, string> = {};
  for (const component of SERVICE_COMPONENTS) {
    const started = await listeningAs(targets[component.name]!, () =>
      component.start({
        log: log.child({ component: component.name }),
        grpcAddr: binds[component.name]!,
        bus,
        mode: 'all-in-one',
        settings,
        peerAddress: (name) => {
          const address = addresses[name];
          if (!address) throw new Error(`${component.name} needs ${name}, which starts after it`);
          return address;
        },
      }),
    );
    stops.push(started.stop);
    addresses[component.name] = started.address;
  }
  const gatewayLog = log.child({ component: 'gateway' });
  const gateway = await listeningAs(gatewayTarget(settings), () => startGatewayComponent(settings, gatewayLog, addresses));
  stops.push((drainUntil) => gateway.close(drainUntil - Date.now()));
  const removeRecord = writeAllInOneRecord(dataDir(settings), {
    pid: process.pid,
    api: gateway.url,
    directory: addresses.directory!,
    ...(metrics ? { metrics: metrics.address } : {}),
  });
  stops.push(async () => removeRecord());
  if (!given.directory && addresses.directory !== wellKnownDirectory) {
    const record = path.join(settings.CRM_DATA_DIR, 'all-in-one.json');
    log.warn({ address: addresses.directory }, `${wellKnownDirectory} is taken: the directory listens on ${addresses.directory}; \`crm admin\` finds it in ${record}`);
  }

  const firstKey = await bootstrapDefaultWorkspace(addresses.directory!, dataDir(settings), settings.OWNER_EMAIL);
  process.stdout.write(`CRM API listening on ${gateway.url} (try ${gateway.url}/v1/contacts)\n`);
  if (firstKey) {
    process.stdout.write(
      `First start: created workspace "${firstKey.workspaceName}" (${firstKey.workspaceId}).\n` +
        `Full-scope API key (shown once, store it now):\n  ${firstKey.key}\n` +
        `Sign in to the settings page as ${firstKey.owner.email}: set your password at this one-time link (valid until ${firstKey.owner.expiresAt}):\n  ${firstKey.owner.link}\n`,
    );
  }
}

async function startOne(name: string): Promise<void> {
  if (name === 'gateway') {
    const { GATEWAY_SETTINGS } = await loadGateway();
    const settings = readSettings('component', [], { ...GATEWAY_SETTINGS, ...addressSettings(SERVICE_NAMES) });
    const log = createLogger('crm-gateway', settings.LOG_LEVEL);
    await checkPorts([gatewayTarget(settings)], log);
    const stops: Stop[] = [];
    onShutdown(log, stops, settings.SHUTDOWN_TIMEOUT_MS);
    const addresses = Object.fromEntries(SERVICE_NAMES.map((n) => [n, settings[addressEnv(n)]]));
    const gateway = await listeningAs(gatewayTarget(settings), () => startGatewayComponent(settings, log, addresses));
    stops.push((drainUntil) => gateway.close(drainUntil - Date.now()));
    log.info({ url: gateway.url }, 'gateway listening');
    return;
  }
  const component = await loadComponent(name);
  if (!component) throw new UsageError(`unknown component "${name}"`);
  const peers = SERVICE_NAMES.filter((n) => n !== name);
  const settings = readSettings('component', [component], {
    GRPC_ADDR: setting.address(`127.0.0.1:${component.defaultPort}`),
    ...addressSettings(peers),
  });
  const log = createLogger(`crm-${name}`, settings.LOG_LEVEL);
  const grpcTarget = addressTarget('GRPC_ADDR', settings.GRPC_ADDR, !givenEnv('GRPC_ADDR'));
  await checkPorts([grpcTarget, ...(component.listens?.(settings) ?? [])], log);
  const stops: Stop[] = [];
  onShutdown(log, stops, settings.SHUTDOWN_TIMEOUT_MS);
  const peerAddresses: Record<string, string> = Object.fromEntries(peers.map((n) => [n, settings[addressEnv(n)]]));
  const bus = await openBus(settings, log, 'component');
  stops.push(() => bus.close());
  const started = await listeningAs(grpcTarget, () =>
    component.start({
      log,
      grpcAddr: settings.GRPC_ADDR,
      bus,
      mode: 'component',
      settings,
      peerAddress: (peer) => peerAddresses[peer]!,
    }),
  );
  stops.push(started.stop);
}

async function migrate(names: string[]): Promise<void> {
  const chosen: ServiceComponent[] = [];
  for (const name of names) {
    const component = await loadComponent(name);
    if (!component?.database) throw new UsageError(`no migrations for "${name}"`);
    chosen.push(component);
  }
  if (!names.length) chosen.push(...(await allComponents()).filter((c) => c.database));
  // DB_SCHEMA is read, and overrides the schema, only when migrating one service, as a single
  // component reads it.
  const settings = readConfig({ ...COMMON, ...sqlSettings(chosen.length === 1 ? chosen[0]!.name : 'unused', chosen.length === 1 ? 'component' : 'all-in-one'), CURSOR_SECRET: setting.optionalSecret() });
  const log = createLogger('crm-migrate', settings.LOG_LEVEL);
  for (const component of chosen) {
    const schema = settings.DB_SCHEMA ?? component.database!.schema;
    const db = await openSql(schema, settings, log);
    try {
      const applied = await runMigrations(db, component.database!.migrations);
      process.stdout.write(`${JSON.stringify({ component: component.name, schema: db.schema, applied })}\n`);
    } finally {
      await db.close();
    }
  }
}

export async function main(argv: string[]): Promise<void> {
  try {
    const args = parseArgs(argv);
    // `crm <words> --help`, `-h` anywhere, or `crm help <words>`: help on stdout, exit 0.
    if (args.help || args.positional[0] === 'help' || !args.positional.length) {
      const words = args.positional[0] === 'help' ? args.positional.slice(1) : args.positional;
      process.stdout.write(`${helpFor(words) ?? (await usage())}\n`);
      return;
    }
    const [command, ...rest] = args.positional;
    switch (command) {
      case 'start':
        if (rest.length > 1) throw new UsageError('crm start takes at most one component');
        return rest[0] ? await startOne(rest[0]) : await startAllInOne();
      case 'migrate':
        return await migrate(rest);
      case 'openapi': {
        // The description the gateway serves at /openapi.json, without starting anything.
        const { CONTEXTS, describeApi } = await loadGateway();
        process.stdout.write(`${JSON.stringify(describeApi(CONTEXTS), null, 2)}\n`);
        return;
      }
      case 'check':
        return await runCheck({ positional: rest, options: args.options });
      case 'admin': {
        // DIRECTORY_ADDR when set; else the all-in-one running on this data folder, wherever its
        // directory listens; else the directory's well-known address.
        const config = readConfig({ CRM_DATA_DIR: COMMON.CRM_DATA_DIR, DIRECTORY_ADDR: setting.optionalAddress() });
        const directory =
          config.DIRECTORY_ADDR ?? readAllInOneRecord(path.resolve(config.CRM_DATA_DIR))?.directory ?? `127.0.0.1:${DEFAULT_PORTS.directory}`;
        return await runAdmin({ positional: rest, options: args.options }, directory);
      }
      default:
        throw new UsageError(`unknown command "${command}"`);
    }
  } catch (error) {
    if (error instanceof UsageError) {
      const words = argv.filter((a) => !a.startsWith('-'));
      process.stderr.write(`crm: ${error.message}\n${helpFor(words) ?? (await usage())}\n`);
      process.exit(2);
    }
    throw error;
  }
}
