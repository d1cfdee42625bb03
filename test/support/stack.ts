/**
 * The distributed stack for end-to-end tests: the directory, every service component and the
 * gateway, each a separate `crm start <component>` process wired by environment variables exactly
 * as docker-compose wires them. Postgres and NATS are this machine's when they answer (each
 * Postgres-backed service gets a schema private to this run, dropped by stop()); otherwise the
 * services fall back to PGlite under a temporary data folder and the in-process bus, with a
 * warning, or under CRM_REQUIRE_SERVICES=1 the stack fails to start.
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { TEST_DATABASE_URL, TEST_NATS_URL, expectEventually, serviceAvailable } from '@crm/kit/testing';
import { Client } from 'pg';
import { SERVICE_COMPONENTS, addressEnv } from '../../packages/cli/src/components';
import { grpcServing } from './health';
import { apiClient } from './http';
import { deleteDurables } from './nats-durables';
import { type CrmProcess, freePort, runCrmJson, startCrm } from './processes';

export interface StackOptions {
  /**
   * More environment for every process (OpenTelemetry exporter, rate limits, ...); wins over the
   * defaults, which raise the rate limits out of the way.
   */
  env?: NodeJS.ProcessEnv;
  /**
   * How long the stack may take to answer /readyz. Default 120 s: up to ten processes start on two
   * cores while the other test worker runs a stack of its own, and 60 s was once not enough in CI
   * (the log did not say which process was late; it now does).
   */
  readyTimeoutMs?: number;
  /** Gateway processes in front of the same services (default 1). */
  gateways?: number;
  /** Environment for the gateways only (deadlines, Redis, limits). */
  gatewayEnv?: NodeJS.ProcessEnv;
  /** Lets a test put something (a fault-injecting proxy) between the gateways and a service. */
  gatewayAddressOf?: (component: string, address: string) => string | Promise<string>;
  /** Environment for one service component only (its database role, DB_MIGRATE), by name; wins over the rest. */
  componentEnv?: Record<string, NodeJS.ProcessEnv>;
  /**
   * More instances of a service component on the same database (Postgres only), by name: `{messaging: 2}`
   * starts `messaging` and `messaging-2`. Gateway k calls instance k (modulo their number); the other
   * services call the first.
   */
  replicas?: Record<string, number>;
  /**
   * Environment for one process only, by its name (`messaging`, `messaging-2`, `gateway-2`): what
   * must differ between instances of a component, such as a METRICS_PORT a test scrapes. Wins over
   * every other setting.
   */
  instanceEnv?: Record<string, NodeJS.ProcessEnv>;
}

export interface Stack {
  readonly baseUrl: string;
  /** Every gateway's base URL; the first is `baseUrl`. */
  readonly gatewayUrls: readonly string[];
  /** Postgres schema of each Postgres-backed service in this run. */
  readonly schemas: Readonly<Record<string, string>>;
  readonly api: ReturnType<typeof apiClient>;
  /** Environment that points `crm admin` at this stack's directory. */
  readonly adminEnv: NodeJS.ProcessEnv;
  readonly processes: readonly CrmProcess[];
  /** Where each service component listens (gRPC), by name. */
  readonly addresses: Readonly<Record<string, string>>;
  readonly usePostgres: boolean;
  readonly useNats: boolean;
  /** Runs `crm admin <args>` against this stack and parses the JSON it prints. */
  admin<T = Record<string, unknown>>(args: string[]): Promise<T>;
  /** A new workspace and a key with these scopes in it. */
  workspaceWithKey(name: string, scopes: string): Promise<{ workspaceId: string; key: string; keyId: string }>;
  /** A key with these scopes in an existing workspace. */
  createKey(workspaceId: string, scopes: string, env?: string): Promise<{ key: string; id: string }>;
  /**
   * Stops a process (SIGTERM, or SIGKILL with `kill`; a service or a gateway) and starts it again
   * with the same configuration, plus `env` when given.
   */
  restart(name: string, whileStopped?: () => Promise<void>, env?: NodeJS.ProcessEnv, how?: { kill?: boolean }): Promise<void>;
  /** Stops every process, drops this run's schemas and removes the data folder. */
  stop(): Promise<void>;
}

export async function startStack(options: StackOptions = {}): Promise<Stack> {
  const usePostgres = serviceAvailable('Postgres', TEST_DATABASE_URL);
  const useNats = serviceAvailable('NATS', TEST_NATS_URL);
  const run = `e2e_${randomBytes(4).toString('hex')}`;
  const dataDir = mkdtempSync(path.join(tmpdir(), 'crm-e2e-'));
  const common: NodeJS.ProcessEnv = {
    CRM_DATA_DIR: dataDir,
    CURSOR_SECRET: randomBytes(32).toString('base64'),
    SECRETS_KEY: randomBytes(32).toString('base64'),
    KEY_PEPPER: randomBytes(16).toString('hex'),
    DATABASE_URL: usePostgres ? TEST_DATABASE_URL : '',
    NATS_URL: useNats ? TEST_NATS_URL : '',
    // This machine's server keeps a week of every earlier run's events: the stack's new durables
    // read from its start, not all of them again (a backlog of 40,000 made people's lag outlast
    // a test's 20 s wait).
    NATS_NEW_DURABLES_FROM: new Date().toISOString(),
    MONGO_URL: '',
    // No Redis unless a suite asks for it (gatewayEnv, env): a gateway given a Redis it cannot
    // reach is not ready, and CI's second pass points REDIS_URL at a closed port.
    REDIS_URL: '',
    // Suites drive hundreds of requests through a handful of keys: the request budget is raised
    // out of their way unless a suite (one about rate limits) sets its own.
    RATE_LIMIT_KEY: '1000000',
    RATE_LIMIT_WORKSPACE: '1000000',
    ...options.env,
  };

  const addresses: Record<string, string> = {};
  for (const component of SERVICE_COMPONENTS) addresses[component.name] = `127.0.0.1:${await freePort()}`;
  // One schema per service and run: services never share tables (each has its own outbox and
  // migrations), and with PGlite the schema also names the service's data folder.
  const schemas = SERVICE_COMPONENTS.filter((c) => c.database).map((c) => `${run}_${c.name}`);
  const gatewayPorts = await Promise.all(Array.from({ length: options.gateways ?? 1 }, () => freePort()));
  // Every service finds the peers it calls at their <NAME>_ADDR, as compose and Kubernetes wire them.
  const peerAddrs: NodeJS.ProcessEnv = Object.fromEntries(Object.entries(addresses).map(([name, address]) => [addressEnv(name), address]));
  const serviceEnv = (component: (typeof SERVICE_COMPONENTS)[number]): NodeJS.ProcessEnv => ({
    ...common,
    ...peerAddrs,
    GRPC_ADDR: addresses[component.name],
    ...(component.database ? { DB_SCHEMA: `${run}_${component.name}` } : {}),
    ...options.componentEnv?.[component.name],
  });
  // How each process is started, by its name, so restart() starts it again alike.
  const launchers = new Map<string, (env?: NodeJS.ProcessEnv) => CrmProcess>();
  for (const component of SERVICE_COMPONENTS) {
    launchers.set(component.name, (env) =>
      startCrm(component.name, ['start', component.name], { ...serviceEnv(component), ...options.instanceEnv?.[component.name], ...env }),
    );
  }
  // Extra instances: the same component and schema at their own address.
  const instances: Record<string, string[]> = Object.fromEntries(Object.entries(addresses).map(([name, address]) => [name, [address]]));
  for (const [name, count] of Object.entries(options.replicas ?? {})) {
    const component = SERVICE_COMPONENTS.find((c) => c.name === name);
    if (!component) throw new Error(`no service component ${name}`);
    if (count > 1 && component.database && !usePostgres) throw new Error(`replicas of ${name} share a database: Postgres only`);
    for (let n = 2; n <= count; n++) {
      const address = `127.0.0.1:${await freePort()}`;
      instances[name]!.push(address);
      launchers.set(`${name}-${n}`, (env) =>
        startCrm(`${name}-${n}`, ['start', name], { ...serviceEnv(component), GRPC_ADDR: address, ...options.instanceEnv?.[`${name}-${n}`], ...env }),
      );
    }
  }
  const gatewayServiceAddrs = async (gateway: number): Promise<NodeJS.ProcessEnv> => {
    const addrs: NodeJS.ProcessEnv = {};
    for (const [name, list] of Object.entries(instances)) {
      const address = list[gateway % list.length]!;
      addrs[addressEnv(name)] = options.gatewayAddressOf ? await options.gatewayAddressOf(name, address) : address;
    }
    return addrs;
  };
  for (const [i, port] of gatewayPorts.entries()) {
    const name = i === 0 ? 'gateway' : `gateway-${i + 1}`;
    const serviceAddrs = await gatewayServiceAddrs(i);
    launchers.set(name, (env) =>
      startCrm(name, ['start', 'gateway'], { ...common, ...serviceAddrs, ...options.gatewayEnv, PORT: String(port), ...options.instanceEnv?.[name], ...env }),
    );
  }
  const processes: CrmProcess[] = [...launchers.values()].map((launch) => launch());

  const stop = async () => {
    await Promise.all(processes.map((p) => p.stop()));
    if (usePostgres) {
      const admin = new Client({ connectionString: TEST_DATABASE_URL });
      await admin.connect();
      try {
        for (const schema of schemas) await admin.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
      } finally {
        await admin.end();
      }
    }
    // A suite may give a service a schema of its own (DB_SCHEMA): its durables are named after it.
    // Not when the suite gave its own NATS_URL: its durables live on a server of its own.
    if (useNats && !options.env?.NATS_URL) await deleteDurables(TEST_NATS_URL, [run, ...SERVICE_COMPONENTS.filter((c) => c.database).map((c) => String(serviceEnv(c).DB_SCHEMA))]);
    rmSync(dataDir, { recursive: true, force: true });
  };

  const gatewayUrls = gatewayPorts.map((port) => `http://127.0.0.1:${port}`);
  const baseUrl = gatewayUrls[0]!;
  const started = Date.now();
  try {
    await expectEventually(
      async () => {
        const exited = processes.find((p) => p.child.exitCode !== null);
        if (exited) return exited;
        // Each process ready on its own: a gateway is ready without the contexts' services.
        const waiting: string[] = [];
        for (const [name, list] of Object.entries(instances)) {
          for (const address of list) if (!(await grpcServing(address))) waiting.push(`${name} (${address})`);
        }
        for (const url of gatewayUrls) {
          const status = await fetch(`${url}/readyz`).then((r) => String(r.status), (e: Error) => e.message);
          if (status !== '200') waiting.push(`gateway ${url}: ${status}`);
        }
        if (waiting.length > 0) throw new Error(`not ready after ${Date.now() - started} ms: ${waiting.join(', ')}`);
      },
      { timeoutMs: options.readyTimeoutMs ?? 120_000, intervalMs: 200 },
    ).then((exited) => {
      // A process that exits while starting fails the stack at once, not at the deadline.
      if (exited) throw new Error(`${exited.name} exited with ${exited.child.exitCode}`);
    });
  } catch (error) {
    // What was not ready comes first: CI keeps only part of a long log.
    console.error(`stack did not start: ${(error as Error).message}`);
    for (const p of processes) console.error(`--- ${p.name} ---\n${p.output()}`);
    await stop();
    throw error;
  }

  const adminEnv: NodeJS.ProcessEnv = { DIRECTORY_ADDR: addresses.directory };
  const admin = <T>(args: string[]) => runCrmJson<T>(args, adminEnv);
  const createKey = async (workspaceId: string, scopes: string, env?: string) =>
    admin<{ key: string; id: string }>(['admin', 'key', 'create', '--workspace', workspaceId, '--scopes', scopes, ...(env ? ['--env', env] : [])]);
  return {
    baseUrl,
    gatewayUrls,
    schemas: Object.fromEntries(SERVICE_COMPONENTS.filter((c) => c.database).map((c) => [c.name, `${run}_${c.name}`])),
    async restart(name, whileStopped, env, how) {
      const index = processes.findIndex((p) => p.name === name);
      const launch = launchers.get(name);
      if (index < 0 || !launch) throw new Error(`no process ${name}`);
      await (how?.kill ? processes[index]!.kill() : processes[index]!.stop());
      await whileStopped?.();
      processes[index] = launch(env);
    },
    api: apiClient(baseUrl),
    addresses,
    adminEnv,
    processes,
    usePostgres,
    useNats,
    admin,
    createKey,
    async workspaceWithKey(name, scopes) {
      const workspace = await admin<{ id: string }>(['admin', 'workspace', 'create', '--name', name]);
      const key = await createKey(workspace.id, scopes);
      return { workspaceId: workspace.id, key: key.key, keyId: key.id };
    },
    stop,
  };
}
