/**
 * Static checks of the deployment files: Dockerfile, .dockerignore, docker-compose.yml, the
 * collector configuration and the Kubernetes manifests in infra/k8s (base and dev overlay, as
 * kustomize renders them).
 *
 * There is no container engine or cluster where these tests run, so they read the files and
 * assert that they agree with each other and with what the components need: the command line's own
 * component list (SERVICE_COMPONENTS) and the variables each component reads, ports, probes,
 * secrets, images. The container health check script the image ships (infra/docker/healthcheck.cjs)
 * is run for real against local gRPC and HTTP servers. Schemas, Pod Security, NetworkPolicies and
 * per-image rollouts: k8s-overlays.test.ts; what each image holds: image-files.test.ts.
 */
import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import * as path from 'node:path';
import {
  AMBIENT_ENV,
  CLI_SERVICES,
  COMPONENTS,
  INBOUND_SMTP_PORT,
  METRICS_PORT,
  OVERLAYS,
  PLANNED_COMPONENTS,
  PORTS,
  POSTGRES_SERVICES,
  ROOT,
  SERVICES,
  allContainers,
  envMap,
  kustomizeAvailable,
  mainContainer,
  parseYaml,
  podTemplates,
  rendered,
  settingsOf,
  unhashed,
} from './deploy-facts';

/* eslint-disable @typescript-eslint/no-explicit-any, @typescript-eslint/no-require-imports */

const K8S_BASE = path.join(ROOT, 'infra', 'k8s', 'base');
const K8S_DEV = path.join(ROOT, 'infra', 'k8s', 'dev');
const HEALTHCHECK = 'infra/docker/healthcheck.cjs';
const COLLECTOR_CONFIG = 'infra/k8s/base/otel-collector.config.yaml';

// ------------------------------------------------------------------------------------------------
// The facts the deployment files must encode
// ------------------------------------------------------------------------------------------------

/** The environment each role must be given (beyond OpenTelemetry's). */
const ROLE_ENV: Record<string, string[]> = {
  gateway: ['HOST', 'PORT', 'DIRECTORY_ADDR', 'PEOPLE_ADDR', 'FLOWS_ADDR', 'MESSAGING_ADDR', 'ACTIVITIES_ADDR', 'WEBHOOKS_ADDR', 'REDIS_URL'],
  directory: ['GRPC_ADDR', 'MONGO_URL', 'MONGO_DB', 'SECRETS_KEY', 'KEY_PEPPER', 'NATS_URL'],
  people: ['GRPC_ADDR', 'DATABASE_URL', 'DB_SCHEMA', 'DB_MIGRATE', 'NATS_URL', 'CURSOR_SECRET', 'DIRECTORY_ADDR'],
  flows: ['GRPC_ADDR', 'DATABASE_URL', 'DB_SCHEMA', 'DB_MIGRATE', 'NATS_URL', 'CURSOR_SECRET', 'DIRECTORY_ADDR', 'PEOPLE_ADDR', 'MESSAGING_ADDR', 'ACTIVITIES_ADDR'],
  messaging: ['GRPC_ADDR', 'DATABASE_URL', 'DB_SCHEMA', 'DB_MIGRATE', 'NATS_URL', 'CURSOR_SECRET', 'REDIS_URL', 'DIRECTORY_ADDR', 'PEOPLE_ADDR', 'INBOUND_SMTP_ADDR'],
  activities: ['GRPC_ADDR', 'DATABASE_URL', 'DB_SCHEMA', 'DB_MIGRATE', 'NATS_URL', 'CURSOR_SECRET', 'DIRECTORY_ADDR', 'PEOPLE_ADDR'],
  // SECRETS_KEY encrypts the endpoints' signing secrets at rest; the peers own the records its deliveries carry.
  webhooks: ['GRPC_ADDR', 'DATABASE_URL', 'DB_SCHEMA', 'DB_MIGRATE', 'NATS_URL', 'CURSOR_SECRET', 'SECRETS_KEY', 'PEOPLE_ADDR', 'FLOWS_ADDR', 'MESSAGING_ADDR', 'ACTIVITIES_ADDR'],
};
/**
 * Development-only switches: they lift webhooks' egress check (private addresses, plain http).
 * No deployment file sets them: a developer does, for their own machine (docker-compose.yml's header).
 */
const DEV_ONLY_ENV = ['WEBHOOKS_ALLOW_PRIVATE', 'WEBHOOKS_ALLOW_HTTP'];
/** Components that reach outside the deployment: messaging (SMTP), webhooks (https to receivers). */
const EGRESS_COMPONENTS = ['messaging', 'webhooks'];
const OTEL_ENV = ['OTEL_SERVICE_NAME', 'OTEL_EXPORTER_OTLP_ENDPOINT', 'OTEL_TRACES_EXPORTER'];
const OTLP_HTTP_ENDPOINT = 'http://otel-collector:4318';
/** Variable naming the address of each service. */
const ADDR_ENV: Record<string, string> = Object.fromEntries(SERVICES.map((s) => [`${s.toUpperCase()}_ADDR`, s]));
/** Variables that are, or embed, credentials: never a literal in a Kubernetes manifest. */
const SECRET_ENV = ['SECRETS_KEY', 'KEY_PEPPER', 'CURSOR_SECRET', 'DATABASE_URL', 'MONGO_URL', 'REDIS_URL'];
/** Third-party images and the major version each is pinned to. */
const IMAGES: Record<string, RegExp> = {
  postgres: /^postgres:16(\.\d+)*(-[a-z0-9.]+)?$/,
  mongo: /^mongo:7(\.\d+)*(-[a-z0-9.]+)?$/,
  redis: /^redis:7(\.\d+)*(-[a-z0-9.]+)?$/,
  nats: /^nats:2(\.\d+)*(-[a-z0-9.]+)?$/,
  'otel-collector': /^otel\/opentelemetry-collector-contrib:0\.\d+\.\d+$/,
  prometheus: /^prom\/prometheus:v2\.\d+\.\d+$/,
  grafana: /^grafana\/grafana:11\.\d+\.\d+$/,
};
/** Published on loopback beside the system, reaching nothing outside: compose's monitoring. */
const MONITORING = ['prometheus', 'grafana'];

describe('the components deployed are the command line\'s', () => {
  test('every CLI component has deployment files, and only planned components are not CLI components yet', () => {
    for (const name of PLANNED_COMPONENTS) {
      // When one joins SERVICE_COMPONENTS, remove it from PLANNED_COMPONENTS (deploy-facts.ts).
      expect([name, CLI_SERVICES.includes(name)]).toEqual([name, false]);
    }
    const compose = loadOne(path.join(ROOT, 'docker-compose.yml'));
    const deployed = Object.keys(compose.services).filter((s) => compose.services[s].command?.[0] === 'start').map((s) => compose.services[s].command[1]);
    expect(deployed.sort()).toEqual([...COMPONENTS].sort());
    for (const c of COMPONENTS) expect([c, fs.existsSync(path.join(K8S_BASE, `${c}.yaml`))]).toEqual([c, true]);
  });

  test('every variable a deployment sets is one its component reads', () => {
    const compose = loadOne(path.join(ROOT, 'docker-compose.yml'));
    for (const c of COMPONENTS) {
      const known = settingsOf(c);
      if (!known) continue; // planned: the command line does not know its settings yet
      const given = [...Object.keys(compose.services[c].environment)];
      if (kustomizeAvailable) for (const overlay of OVERLAYS) given.push(...Object.keys(envMap(mainContainer(findDoc(rendered[overlay], 'Deployment', c)))));
      for (const v of new Set(given)) expect([c, v, known.has(v) || AMBIENT_ENV.test(v)]).toEqual([c, v, true]);
      for (const v of ROLE_ENV[c]!) expect([c, v, known.has(v)]).toEqual([c, v, true]);
    }
  });
});
const findDoc = (docs: any[], kind: string, name: string) => docs.find((d) => d.kind === kind && d.metadata.name === name);

// ------------------------------------------------------------------------------------------------
// Loading
// ------------------------------------------------------------------------------------------------

const read = (...p: string[]) => fs.readFileSync(path.join(...p), 'utf8');

const loadYaml = (file: string): any[] => parseYaml(fs.readFileSync(file, 'utf8'), file);
const loadOne = (file: string): any => {
  const docs = loadYaml(file);
  expect(docs).toHaveLength(1);
  return docs[0];
};

const yamlFilesIn = (dir: string) => fs.readdirSync(dir).filter((f) => /\.ya?ml$/.test(f)).sort();
/** Resolves compose interpolation with an empty environment: `${X:-d}`/`${X-d}` → d, `${X}` → ''. */
function interpolate(value: string): string {
  return value
    .replace(/\$\{([A-Za-z_][A-Za-z0-9_]*)(?::?-([^}]*))?\}/g, (_m, _name, def) => def ?? '')
    .replace(/\$\$/g, '$');
}

function cpu(q: string | number): number {
  const s = String(q);
  return s.endsWith('m') ? Number(s.slice(0, -1)) / 1000 : Number(s);
}
function bytes(q: string | number): number {
  const m = /^(\d+(?:\.\d+)?)(Ki|Mi|Gi|Ti|k|M|G|T)?$/.exec(String(q));
  if (!m) throw new Error(`bad quantity ${q}`);
  const unit: Record<string, number> = { Ki: 2 ** 10, Mi: 2 ** 20, Gi: 2 ** 30, Ti: 2 ** 40, k: 1e3, M: 1e6, G: 1e9, T: 1e12 };
  return Number(m[1]) * (m[2] ? unit[m[2]]! : 1);
}

/** host and port of `host:port` or a URL. */
function endpoint(value: string): { host: string; port: number } {
  if (value.includes('://')) {
    const u = new URL(value);
    const defaults: Record<string, number> = { 'http:': 80, 'https:': 443 };
    return { host: u.hostname, port: Number(u.port || defaults[u.protocol]) };
  }
  const i = value.lastIndexOf(':');
  return { host: value.slice(0, i), port: Number(value.slice(i + 1)) };
}

// ------------------------------------------------------------------------------------------------
// Dockerfile and .dockerignore
// ------------------------------------------------------------------------------------------------

interface Instruction {
  op: string;
  args: string;
}
interface Stage {
  from: string;
  name?: string;
  body: Instruction[];
}

function parseDockerfile(src: string): { globalArgs: Record<string, string>; stages: Stage[] } {
  const instructions: Instruction[] = [];
  let buf = '';
  for (const raw of src.split('\n')) {
    const line = raw.trimEnd();
    if (/^\s*#/.test(line)) continue; // comments, also between continuation lines
    if (line.endsWith('\\')) {
      buf += `${line.slice(0, -1)} `;
      continue;
    }
    buf += line;
    const m = /^\s*([A-Za-z]+)\s+([\s\S]*)$/.exec(buf);
    if (m) instructions.push({ op: m[1]!.toUpperCase(), args: m[2]!.replace(/\s+/g, ' ').trim() });
    buf = '';
  }
  const globalArgs: Record<string, string> = {};
  const stages: Stage[] = [];
  for (const ins of instructions) {
    if (ins.op === 'FROM') {
      const [image, as, name] = ins.args.split(' ');
      const from = image!.replace(/\$\{?(\w+)\}?/g, (_m, v) => globalArgs[v] ?? `<unset ${v}>`);
      stages.push({ from, name: as?.toUpperCase() === 'AS' ? name : undefined, body: [] });
    } else if (stages.length === 0) {
      if (ins.op === 'ARG') {
        const [k, v] = ins.args.split('=');
        globalArgs[k!] = v ?? '';
      }
    } else {
      stages[stages.length - 1]!.body.push(ins);
    }
  }
  return { globalArgs, stages };
}

/** Docker's .dockerignore semantics: last matching pattern wins; a path is out if it or a parent is. */
function dockerignore(src: string): (p: string) => boolean {
  const rules = src
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l && !l.startsWith('#'))
    .map((l) => {
      const negate = l.startsWith('!');
      const pattern = path.posix.normalize(negate ? l.slice(1) : l).replace(/^\/+/, '');
      // Go's filepath.Match with `**`, as Docker reads it: Node's glob matcher has the same `*`,
      // `?` and `**` (a .dockerignore here uses no braces or character classes).
      if (/[[{]/.test(pattern)) throw new Error(`.dockerignore: ${l}: braces and character classes read differently here`);
      return { negate, matches: (candidate: string) => path.posix.matchesGlob(candidate, pattern) };
    });
  return (p: string) => {
    const parts = p.split('/');
    const candidates = parts.map((_, i) => parts.slice(0, i + 1).join('/'));
    let excluded = false;
    // A pattern applies when it matches the path or one of its parent directories.
    for (const r of rules) if (candidates.some(r.matches)) excluded = !r.negate;
    return excluded;
  };
}

describe('Dockerfile', () => {
  const { globalArgs, stages } = parseDockerfile(read(ROOT, 'Dockerfile'));
  const byName = (name: string) => stages.find((s) => s.name === name)!;
  const last = (stage: Stage, op: string) => [...stage.body].reverse().find((i) => i.op === op);
  const rootPkg = JSON.parse(read(ROOT, 'package.json'));
  const runtime = byName('runtime');
  const targets = [...COMPONENTS, 'all-in-one'];
  /** An instruction of a target, or of the runtime stage it is built on. */
  const effective = (target: string, op: string) => last(byName(target), op) ?? last(runtime, op);

  test('is a multi-stage build on the pinned Node LTS release of .node-version, with a target per component and all-in-one last', () => {
    // The image runs the release the project is developed and tested on (.node-version), on Debian
    // slim, and that release satisfies every package's "engines".
    const release = read(ROOT, '.node-version').trim();
    const image = `node:${release}-trixie-slim`;
    expect(release).toMatch(/^\d+\.\d+\.\d+$/);
    expect(read(ROOT, '.nvmrc').trim()).toBe(release.split('.')[0]);
    expect(rootPkg.engines.node).toBe(`>=${release.split('.')[0]}`);
    for (const workspace of rootPkg.workspaces as string[]) {
      for (const dir of workspace.endsWith('/*') ? fs.readdirSync(path.join(ROOT, workspace.slice(0, -2))).map((d) => path.join(workspace.slice(0, -2), d)) : [workspace]) {
        if (!fs.existsSync(path.join(ROOT, dir, 'package.json'))) continue;
        expect([dir, JSON.parse(read(ROOT, dir, 'package.json')).engines?.node]).toEqual([dir, rootPkg.engines.node]);
      }
    }
    const names = new Set<string>();
    for (const s of stages) {
      // every stage starts from the pinned Node image or from an earlier stage
      expect(s.from === image || names.has(s.from)).toBe(true);
      if (s.name) names.add(s.name);
    }
    expect(globalArgs.NODE_IMAGE).toBe(image);
    expect(runtime.from).toBe(image);
    for (const t of targets) expect([t, byName(t)?.from]).toEqual([t, 'runtime']);
    // `docker build .` without --target gives the all-in-one image
    expect(stages[stages.length - 1]!.name).toBe('all-in-one');
  });

  test('installs with npm ci, builds with turbo, then copies each target\'s files as scripts/image-files.mjs lists them', () => {
    const build = byName('build');
    const runs = build.body.filter((i) => i.op === 'RUN').map((i) => i.args).join(' ; ');
    const ci = runs.indexOf('npm ci');
    const compile = runs.indexOf('npm run build');
    const copy = runs.search(/node scripts\/image-files\.mjs "\$target" --copy-to "\/out\/\$target"/);
    expect(ci).toBeGreaterThanOrEqual(0);
    expect(compile).toBeGreaterThan(ci);
    expect(copy).toBeGreaterThan(compile);
    expect(runs).toContain('$(node scripts/image-files.mjs --targets)');
    expect(rootPkg.scripts.build).toMatch(/^turbo run build/);
    for (const t of targets) {
      const copies = byName(t).body.filter((i) => i.op === 'COPY');
      // exactly its own folder from the build stage, and nothing from the build context
      expect([t, copies.map((i) => i.args)]).toEqual([t, [`--from=build /out/${t}/ ./`]]);
    }
    // nothing installs at run time
    for (const s of [runtime, ...targets.map(byName)]) expect(s.body.some((i) => i.op === 'RUN' && /\bnpm (ci|install)\b/.test(i.args))).toBe(false);
  });

  test('uses the npm that package.json pins', () => {
    const pinned = /^npm@(.+)$/.exec(rootPkg.packageManager)?.[1];
    const arg = stages.flatMap((s) => s.body).find((i) => i.op === 'ARG' && i.args.startsWith('NPM_VERSION='));
    expect(arg?.args).toBe(`NPM_VERSION=${pinned}`);
  });

  test('runs as a numeric non-root user', () => {
    for (const t of targets) {
      const user = effective(t, 'USER')?.args;
      expect([t, user]).toEqual([t, expect.stringMatching(/^\d+(:\d+)?$/)]);
      expect(Number(user!.split(':')[0])).toBeGreaterThan(0);
    }
  });

  test('enters through the crm CLI; each component image starts its component, all-in-one starts everything', () => {
    const cliTsconfig = JSON.parse(read(ROOT, 'packages/cli/tsconfig.json'));
    expect(cliTsconfig.compilerOptions).toMatchObject({ rootDir: 'src', outDir: 'dist' });
    for (const t of targets) {
      const entrypoint = JSON.parse(effective(t, 'ENTRYPOINT')!.args);
      expect(entrypoint).toEqual(['node', 'packages/cli/bin/crm.js']);
      expect(rootPkg.scripts.crm).toBe(entrypoint.join(' '));
      expect([t, JSON.parse(effective(t, 'CMD')!.args)]).toEqual([t, t === 'all-in-one' ? ['start'] : ['start', t]]);
    }
  });

  test('listens on every interface in a container', () => {
    const env = runtime.body.filter((i) => i.op === 'ENV').map((i) => i.args).join(' ');
    expect(env).toMatch(/(^|\s)HOST=0\.0\.0\.0(\s|$)/);
  });

  test('each image exposes its own ports and health-checks with the shipped script', () => {
    for (const t of targets) {
      const exposed = byName(t).body.filter((i) => i.op === 'EXPOSE').flatMap((i) => i.args.split(' ').map(Number)).sort();
      const expected = t === 'all-in-one' ? COMPONENTS.map((c) => PORTS[c]!) : [PORTS[t]!, ...(t === 'messaging' ? [INBOUND_SMTP_PORT] : [])];
      expect([t, exposed]).toEqual([t, expected.sort()]);
    }
    const hc = last(runtime, 'HEALTHCHECK')!.args;
    const cmd = JSON.parse(hc.slice(hc.indexOf('CMD ') + 4));
    expect(cmd).toEqual(['node', HEALTHCHECK]);
    expect(fs.existsSync(path.join(ROOT, HEALTHCHECK))).toBe(true);
  });

  test('.dockerignore keeps build inputs and drops installed, built and secret files', () => {
    const ignored = dockerignore(read(ROOT, '.dockerignore'));
    const workspaces: string[] = rootPkg.workspaces.flatMap((w: string) =>
      w.endsWith('/*')
        ? fs.readdirSync(path.join(ROOT, w.slice(0, -2))).map((d) => `${w.slice(0, -2)}/${d}`)
        : [w],
    );
    const kept = [
      'package.json',
      'package-lock.json',
      '.npmrc',
      'turbo.json',
      'tsconfig.base.json',
      HEALTHCHECK,
      'proto/crm/people/v1/people.proto',
      'packages/cli/src/main.ts',
      'packages/cli/bin/crm.js',
      'scripts/image-files.mjs',
      'services/people/src/index.ts',
      ...workspaces.map((w) => `${w}/package.json`),
    ];
    for (const p of kept) expect([p, ignored(p)]).toEqual([p, false]);
    const dropped = [
      'node_modules/fastify/package.json',
      'packages/kit/node_modules/x/index.js',
      'packages/cli/dist/main.js',
      'gateway/dist/index.js',
      '.git/HEAD',
      '.env',
      'services/people/.env',
      '.data/pglite/PG_VERSION',
      'test/e2e/api.test.ts',
      'infra/k8s/base/kustomization.yaml',
    ];
    for (const p of dropped) expect([p, ignored(p)]).toEqual([p, true]);
  });
});

// ------------------------------------------------------------------------------------------------
// OpenTelemetry Collector configuration
// ------------------------------------------------------------------------------------------------

describe(COLLECTOR_CONFIG, () => {
  const file = path.join(ROOT, COLLECTOR_CONFIG);
  const config = loadOne(file);

  test('receives OTLP over gRPC (4317) and HTTP (4318) on all interfaces', () => {
    expect(config.receivers.otlp.protocols.grpc.endpoint).toBe('0.0.0.0:4317');
    expect(config.receivers.otlp.protocols.http.endpoint).toBe('0.0.0.0:4318');
    // the components export OTLP/HTTP to the http receiver
    expect(endpoint(OTLP_HTTP_ENDPOINT).port).toBe(endpoint(config.receivers.otlp.protocols.http.endpoint).port);
  });

  test('every pipeline component and extension is defined, traces go to debug', () => {
    const pipelines = config.service.pipelines;
    expect(Object.keys(pipelines)).toEqual(expect.arrayContaining(['traces']));
    for (const [name, p] of Object.entries<any>(pipelines)) {
      for (const r of p.receivers) expect([name, r, r in config.receivers]).toEqual([name, r, true]);
      for (const x of p.processors ?? []) expect([name, x, x in config.processors]).toEqual([name, x, true]);
      for (const e of p.exporters) expect([name, e, e in config.exporters]).toEqual([name, e, true]);
      if (p.processors?.includes('memory_limiter')) expect(p.processors[0]).toBe('memory_limiter');
    }
    expect(pipelines.traces.receivers).toContain('otlp');
    expect(pipelines.traces.exporters).toContain('debug');
    for (const ext of config.service.extensions ?? []) expect(config.extensions).toHaveProperty([ext]);
  });

  test('carries commented examples for Jaeger and Tempo', () => {
    const src = read(file);
    expect(src).toMatch(/^\s*#\s*otlp\/jaeger:/m);
    expect(src).toMatch(/^\s*#\s*otlp\/tempo:/m);
  });

  test('is the configuration the Kubernetes ConfigMap carries and compose mounts', () => {
    const k = loadOne(path.join(K8S_BASE, 'kustomization.yaml'));
    const gen = k.configMapGenerator.find((g: any) => g.name === 'otel-collector-config');
    expect(gen.files).toEqual([`config.yaml=${path.basename(COLLECTOR_CONFIG)}`]);
    const compose = loadOne(path.join(ROOT, 'docker-compose.yml'));
    expect(compose.services['otel-collector'].volumes).toContain(`./${COLLECTOR_CONFIG}:/etc/otelcol-contrib/config.yaml:ro`);
    if (kustomizeAvailable) {
      const cm = rendered.base.find((d) => d.kind === 'ConfigMap' && unhashed(d.metadata.name) === 'otel-collector-config');
      expect(parseYaml(cm.data['config.yaml'], 'ConfigMap otel-collector-config')[0]).toEqual(config);
    }
  });
});

// ------------------------------------------------------------------------------------------------
// docker-compose.yml
// ------------------------------------------------------------------------------------------------

describe('docker-compose.yml', () => {
  const compose = loadOne(path.join(ROOT, 'docker-compose.yml'));
  const services: Record<string, any> = compose.services;
  const env = (name: string): Record<string, string> => {
    const e = services[name].environment ?? {};
    const entries: [string, string][] = Array.isArray(e)
      ? e.map((kv: string) => [kv.slice(0, kv.indexOf('=')), kv.slice(kv.indexOf('=') + 1)])
      : Object.entries(e).map(([k, v]) => [k, String(v)]);
    return Object.fromEntries(entries.map(([k, v]) => [k, interpolate(v)]));
  };
  const rawEnv = (name: string): Record<string, string> =>
    Object.fromEntries(Object.entries(services[name].environment ?? {}).map(([k, v]) => [k, String(v)]));
  const hasHealthcheck = (name: string) => Array.isArray(services[name]?.healthcheck?.test) && !services[name].healthcheck.disable;

  test('runs every component, a migrate one-shot per Postgres service, and the backing services', () => {
    expect(Object.keys(services).sort()).toEqual([...COMPONENTS, ...POSTGRES_SERVICES.map((s) => `${s}-migrate`), ...Object.keys(IMAGES)].sort());
  });

  test('builds each component from its own Dockerfile target, tagged by its own variable, and starts it', () => {
    for (const c of COMPONENTS) {
      const s = services[c];
      expect([c, s.image]).toEqual([c, `crm-${c}:\${${c.toUpperCase()}_TAG:-dev}`]);
      expect([c, s.build]).toEqual([c, { context: '.', target: c }]);
      expect(s.command).toEqual(['start', c]);
      expect([c, s.read_only, s.init]).toEqual([c, true, true]);
      expect(s.cap_drop).toContain('ALL');
    }
  });

  test('each Postgres service is migrated first, with its migrate role, by a one-shot from its own image', () => {
    const pg = env('postgres');
    for (const c of POSTGRES_SERVICES) {
      const m = services[`${c}-migrate`];
      expect([c, m.image, m.command, m.restart]).toEqual([c, services[c].image, ['migrate', c], 'no']);
      const migrateUrl = new URL(env(`${c}-migrate`).DATABASE_URL!);
      const appUrl = new URL(env(c).DATABASE_URL!);
      expect([migrateUrl.username, appUrl.username]).toEqual([`${c}_migrate`, `${c}_app`]);
      expect([decodeURIComponent(migrateUrl.password), decodeURIComponent(appUrl.password)]).toEqual([pg.DB_MIGRATE_PASSWORD, pg.DB_APP_PASSWORD]);
      expect(env(`${c}-migrate`).DB_SCHEMA).toBe(c);
      expect(env(c).DB_MIGRATE).toBe('skip');
      expect(services[c].depends_on[`${c}-migrate`]).toEqual({ condition: 'service_completed_successfully' });
    }
    // Postgres creates the roles at first start, from the same roles.sql production runs, for
    // every Postgres service (init-roles.sh's list)
    const initServices = /\$\{CRM_DB_SERVICES:-([^}]*)\}/.exec(read(ROOT, 'infra/postgres/init-roles.sh'))?.[1]?.split(/\s+/);
    expect(initServices?.sort()).toEqual([...POSTGRES_SERVICES].sort());
    expect(services.postgres.volumes).toEqual(
      expect.arrayContaining(['./infra/postgres/init-roles.sh:/docker-entrypoint-initdb.d/init-roles.sh:ro', './infra/postgres/roles.sql:/etc/crm/postgres/roles.sql:ro']),
    );
    expect(fs.statSync(path.join(ROOT, 'infra/postgres/init-roles.sh')).mode & 0o111).not.toBe(0);
  });

  test('networks: everything on the internal backend; only the gateway, messaging, webhooks and the published monitoring reach outside', () => {
    expect(compose.networks.backend.internal).toBe(true);
    expect(compose.networks.edge?.internal).toBeFalsy();
    for (const [name, s] of Object.entries(services)) {
      const nets = [...(s.networks ?? [])].sort();
      expect([name, nets]).toEqual([name, ['gateway', ...EGRESS_COMPONENTS, ...MONITORING].includes(name) ? ['backend', 'edge'] : ['backend']]);
    }
  });

  test('sets none of the development-only switches (webhooks\' egress check stays on)', () => {
    for (const [name, s] of Object.entries(services)) {
      for (const v of DEV_ONLY_ENV) expect([name, v, v in (s.environment ?? {})]).toEqual([name, v, false]);
    }
    // the header says how a developer lifts them, for webhooks only
    const header = read(ROOT, 'docker-compose.yml').split('\n').filter((l) => l.startsWith('#')).join('\n');
    for (const v of DEV_ONLY_ENV) expect(header).toContain(v);
  });

  test.each(COMPONENTS)('%s has the environment its role needs', (c) => {
    const e = env(c);
    for (const key of [...ROLE_ENV[c]!, ...OTEL_ENV]) expect([c, key, Boolean(e[key])]).toEqual([c, key, true]);
    expect(e.OTEL_SERVICE_NAME).toBe(`crm-${c}`);
    expect(e.OTEL_EXPORTER_OTLP_ENDPOINT).toBe(OTLP_HTTP_ENDPOINT);
    expect(e.OTEL_TRACES_EXPORTER).toBe('otlp');
    // /metrics where Prometheus scrapes it (infra/prometheus/prometheus.yml), never the API's port.
    expect([c, e.METRICS_HOST, Number(e.METRICS_PORT)]).toEqual([c, '0.0.0.0', METRICS_PORT]);
    if (c === 'gateway') {
      expect(e.HOST).toBe('0.0.0.0');
      expect(Number(e.PORT)).toBe(PORTS.gateway);
    } else {
      expect(e.GRPC_ADDR).toBe(`0.0.0.0:${PORTS[c]}`);
    }
    if (e.DB_SCHEMA) expect(e.DB_SCHEMA).toBe(c);
  });

  test('publishes the gateway on 8080 and messaging\'s inbound SMTP on 2525; Prometheus and Grafana on loopback only; nothing else', () => {
    expect(services.gateway.ports).toEqual([`${PORTS.gateway}:${PORTS.gateway}`]);
    expect(services.messaging.ports).toEqual([`${INBOUND_SMTP_PORT}:${INBOUND_SMTP_PORT}`]);
    expect(endpoint(env('messaging').INBOUND_SMTP_ADDR!)).toEqual({ host: '0.0.0.0', port: INBOUND_SMTP_PORT });
    expect(services.prometheus.ports).toEqual(['127.0.0.1:9090:9090']);
    expect(services.grafana.ports).toEqual(['127.0.0.1:3000:3000']);
    for (const [name, s] of Object.entries(services)) if (!['gateway', 'messaging', ...MONITORING].includes(name)) expect([name, s.ports]).toEqual([name, undefined]);
  });

  test('service addresses point at the compose service and its gRPC port', () => {
    const e = env('gateway');
    for (const [key, target] of Object.entries(ADDR_ENV)) {
      expect(endpoint(e[key]!)).toEqual({ host: target, port: PORTS[target] });
      expect(endpoint(env(target).GRPC_ADDR!).port).toBe(PORTS[target]);
    }
  });

  test('backing-service URLs match the backing services', () => {
    const pg = env('postgres');
    for (const c of POSTGRES_SERVICES) {
      for (const u of [new URL(env(c).DATABASE_URL!), new URL(env(`${c}-migrate`).DATABASE_URL!)]) {
        expect(u.protocol).toMatch(/^postgres(ql)?:$/);
        expect([c, u.hostname, u.port, u.pathname]).toEqual([c, 'postgres', '5432', `/${pg.POSTGRES_DB}`]);
        // never the superuser
        expect(u.username).not.toBe(pg.POSTGRES_USER);
      }
    }
    expect(new Set(POSTGRES_SERVICES.map((c) => env(c).DB_SCHEMA)).size).toBe(POSTGRES_SERVICES.length);
    const mongo = new URL(env('directory').MONGO_URL!);
    expect([mongo.protocol, mongo.hostname, mongo.port]).toEqual(['mongodb:', 'mongo', '27017']);
    // the dev MongoDB is a single-node replica set addressed directly (its member name is localhost)
    expect(services.mongo.command).toEqual(expect.arrayContaining(['--replSet']));
    expect(mongo.searchParams.get('directConnection')).toBe('true');
    for (const c of ['gateway', 'messaging']) expect(endpoint(env(c).REDIS_URL!)).toEqual({ host: 'redis', port: 6379 });
    for (const c of SERVICES) expect(env(c).NATS_URL).toBe('nats://nats:4222');
    // One NATS server keeps one copy of the stream: the default, which compose leaves alone.
    for (const c of SERVICES) expect([c, env(c).NATS_STREAM_REPLICAS ?? '1']).toEqual([c, '1']);
  });

  test('NATS runs JetStream with its store on a volume', () => {
    const cmd: string[] = services.nats.command;
    expect(cmd.some((a) => a === '--jetstream' || a === '-js')).toBe(true);
    const storeDir = cmd.find((a) => a.startsWith('--store_dir='))?.split('=')[1];
    expect(storeDir).toBeDefined();
    expect(services.nats.volumes.map((v: string) => v.split(':')[1])).toContain(storeDir);
  });

  test('secrets have clearly marked dev-only defaults, shared where they must be', () => {
    const secretVars = ['KEY_PEPPER', 'CURSOR_SECRET', 'POSTGRES_PASSWORD', 'SECRETS_KEY', 'DB_MIGRATE_PASSWORD', 'DB_APP_PASSWORD', 'GRAFANA_ADMIN_PASSWORD'];
    const src = read(ROOT, 'docker-compose.yml');
    for (const v of secretVars) {
      const uses = [...src.matchAll(new RegExp(`\\$\\{${v}(:?-)?([^}]*)\\}`, 'g'))];
      expect([v, uses.length > 0]).toEqual([v, true]);
      for (const u of uses) {
        expect([v, u[1]]).toEqual([v, ':-']); // always overridable, never empty
        const def = u[2]!;
        const plain = v === 'SECRETS_KEY' ? Buffer.from(def, 'base64') : Buffer.from(def);
        expect([v, plain.toString().startsWith('dev-only-')]).toEqual([v, true]);
        if (v === 'SECRETS_KEY') expect(plain.length).toBe(32);
      }
      expect(new Set(uses.map((u) => u[0])).size).toBe(1); // one default per secret
    }
    // every replica and service signs cursors with the same secret
    const cursor = new Set(POSTGRES_SERVICES.map((c) => rawEnv(c).CURSOR_SECRET));
    expect(cursor.size).toBe(1);
    // no variable without a default: `docker compose up` works with an empty environment
    expect(src.replace(/^\s*#.*$/gm, '')).not.toMatch(/\$\{[A-Za-z_][A-Za-z0-9_]*\}/);
  });

  test('every service but the collector has a health check; components use the shipped script', () => {
    for (const name of Object.keys(services)) {
      if (name === 'otel-collector' || name.endsWith('-migrate')) continue;
      expect([name, hasHealthcheck(name)]).toEqual([name, true]);
      expect(['CMD', 'CMD-SHELL']).toContain(services[name].healthcheck.test[0]);
    }
    for (const c of SERVICES) {
      expect(services[c].healthcheck.test).toEqual(['CMD', 'node', HEALTHCHECK, 'grpc', `127.0.0.1:${PORTS[c]}`]);
    }
    expect(services.gateway.healthcheck.test).toEqual([
      'CMD',
      'node',
      HEALTHCHECK,
      'http',
      `http://127.0.0.1:${PORTS.gateway}/readyz`,
    ]);
  });

  test('each component waits for everything it dials, healthy when that can be checked', () => {
    for (const c of [...COMPONENTS, ...POSTGRES_SERVICES.map((s) => `${s}-migrate`)]) {
      const deps: Record<string, any> = services[c].depends_on;
      expect(Array.isArray(deps)).toBe(false);
      const dialed = new Set<string>();
      for (const v of Object.values(env(c))) {
        if (!/^[a-z]+:\/\/|^[a-z-]+:\d+$/.test(v)) continue;
        const { host } = endpoint(v);
        if (host in services) dialed.add(host);
      }
      const migrate = `${c}-migrate`;
      expect([c, Object.keys(deps).filter((d) => d !== migrate).sort()]).toEqual([c, [...dialed].sort()]);
      for (const [dep, { condition }] of Object.entries<any>(deps)) {
        const expected = dep === migrate ? 'service_completed_successfully' : hasHealthcheck(dep) ? 'service_healthy' : 'service_started';
        expect([c, dep, condition]).toEqual([c, dep, expected]);
      }
    }
    expect(Object.keys(services.gateway.depends_on)).toEqual(expect.arrayContaining([...SERVICES, 'redis']));
  });

  test('the dependency graph has no cycle', () => {
    const state: Record<string, 'visiting' | 'done'> = {};
    const visit = (n: string, trail: string[]) => {
      if (state[n] === 'done') return;
      if (state[n] === 'visiting') throw new Error(`cycle: ${[...trail, n].join(' -> ')}`);
      state[n] = 'visiting';
      for (const d of Object.keys(services[n].depends_on ?? {})) visit(d, [...trail, n]);
      state[n] = 'done';
    };
    for (const n of Object.keys(services)) visit(n, []);
  });

  test('third-party images are pinned to a major version', () => {
    for (const [name, re] of Object.entries(IMAGES)) expect([name, services[name].image]).toEqual([name, expect.stringMatching(re)]);
  });

  test('volumes are declared, and the collector mounts its configuration', () => {
    for (const [name, s] of Object.entries(services)) {
      for (const v of (s.volumes ?? []) as string[]) {
        const source = v.split(':')[0]!;
        if (source.startsWith('.') || source.startsWith('/')) {
          expect([name, fs.existsSync(path.join(ROOT, source))]).toEqual([name, true]);
        } else {
          expect(compose.volumes).toHaveProperty([source]);
        }
      }
    }
    const mount = (services['otel-collector'].volumes as string[]).find((v) => v.startsWith(`./${COLLECTOR_CONFIG}:`));
    const target = mount!.split(':')[1];
    expect(services['otel-collector'].command).toContain(`--config=${target}`);
  });
});

// ------------------------------------------------------------------------------------------------
// Kubernetes
// ------------------------------------------------------------------------------------------------

const baseKustomization = loadOne(path.join(K8S_BASE, 'kustomization.yaml'));
const devKustomization = loadOne(path.join(K8S_DEV, 'kustomization.yaml'));
const manifestFiles = (dir: string) =>
  yamlFilesIn(dir).filter((f) => f !== 'kustomization.yaml' && loadYaml(path.join(dir, f)).some((d) => d?.apiVersion && d?.kind));
const secretTemplates: any[] = loadYaml(path.join(K8S_BASE, 'secret.template.yaml'));
/** Literals of a kustomize secretGenerator, as a key → value map. */
const generated = (k: any, name: string): Record<string, string> | undefined => {
  const gen = (k.secretGenerator ?? []).find((g: any) => g.name === name);
  if (!gen) return undefined;
  return Object.fromEntries((gen.literals ?? []).map((l: string) => [l.slice(0, l.indexOf('=')), l.slice(l.indexOf('=') + 1)]));
};

const find = (docs: any[], kind: string, name: string) => docs.find((d) => d.kind === kind && unhashed(d.metadata.name) === name);
const ofKind = (docs: any[], ...kinds: string[]) => docs.filter((d) => kinds.includes(d.kind));
const workloads = (docs: any[]) => ofKind(docs, 'Deployment', 'StatefulSet');
const selects = (selector: Record<string, string>, labels: Record<string, string>) =>
  Object.keys(selector).length > 0 && Object.entries(selector).every(([k, v]) => labels?.[k] === v);
/** A container port given by number or by name, as a number. */
const portNumber = (c: any, port: number | string) => (typeof port === 'number' ? port : c.ports?.find((p: any) => p.name === port)?.containerPort);

describe('Kubernetes manifests (files)', () => {
  test('base kustomization lists every manifest in base/ except the secret template', () => {
    const resources: string[] = baseKustomization.resources;
    expect([...resources].sort()).toEqual(manifestFiles(K8S_BASE).filter((f) => !f.endsWith('.template.yaml')).sort());
    expect(resources).not.toContain('secret.template.yaml');
  });

  test('dev kustomization builds on base and lists every manifest in dev/', () => {
    const resources: string[] = devKustomization.resources;
    expect(resources).toContain('../base');
    expect(resources.filter((r) => r !== '../base').sort()).toEqual(manifestFiles(K8S_DEV));
    expect([baseKustomization.namespace, devKustomization.namespace]).toEqual(['crm', 'crm']);
  });

  test('one Secret per component, holding only its keys; the template holds no value; dev generates the same', () => {
    expect(secretTemplates.map((t) => t.metadata.name).sort()).toEqual(COMPONENTS.map((c) => `crm-${c}`).sort());
    for (const t of secretTemplates) {
      expect(t.data).toBeUndefined();
      for (const [k, v] of Object.entries(t.stringData)) expect([t.metadata.name, k, v]).toEqual([t.metadata.name, k, '']);
      expect([t.metadata.name, Object.keys(generated(devKustomization, t.metadata.name) ?? {}).sort()]).toEqual([t.metadata.name, Object.keys(t.stringData).sort()]);
    }
  });

  test('no overlay sets a development-only switch, in any form (env, config.env, a generated ConfigMap or Secret)', () => {
    const files = (dir: string): string[] =>
      fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? files(path.join(dir, e.name)) : [path.join(dir, e.name)]));
    const all = files(path.join(ROOT, 'infra', 'k8s'));
    expect(all).toEqual(expect.arrayContaining([path.join(K8S_BASE, 'config.env'), path.join(K8S_BASE, 'webhooks.yaml')]));
    for (const file of all) {
      // comments may say why they are absent; nothing else may name them
      const code = read(file).split('\n').map((l) => l.replace(/(^|\s)#.*$/, '')).join('\n');
      for (const v of DEV_ONLY_ENV) expect([path.relative(ROOT, file), v, code.includes(v)]).toEqual([path.relative(ROOT, file), v, false]);
    }
    if (kustomizeAvailable) {
      for (const overlay of OVERLAYS) {
        for (const { workload, spec } of podTemplates(rendered[overlay])) {
          for (const c of allContainers(spec)) {
            const names = [...(c.env ?? []).map((e: any) => e.name), ...(c.envFrom ?? []).map(() => '<envFrom>')];
            for (const v of DEV_ONLY_ENV) expect([overlay, workload.metadata.name, v, names.includes(v)]).toEqual([overlay, workload.metadata.name, v, false]);
            // envFrom would import whatever a ConfigMap or Secret holds: none is used
            expect([overlay, workload.metadata.name, names.includes('<envFrom>')]).toEqual([overlay, workload.metadata.name, false]);
          }
        }
      }
    }
  });

  test('the dev Postgres runs the roles.sql and init-roles.sh of infra/postgres (copies kept equal)', () => {
    for (const f of ['roles.sql', 'init-roles.sh']) expect([f, read(K8S_DEV, 'postgres-init', f)]).toEqual([f, read(ROOT, 'infra', 'postgres', f)]);
    const gen = devKustomization.configMapGenerator.find((g: any) => g.name === 'postgres-init');
    expect(gen.files.sort()).toEqual(['postgres-init/init-roles.sh', 'postgres-init/roles.sql']);
  });
});

(kustomizeAvailable ? describe : describe.skip)('Kubernetes manifests (rendered)', () => {
  const base = rendered.base;
  const dev = rendered.dev;
  const configMap = find(base, 'ConfigMap', 'crm-config');
  const devSecrets = (name: string) => generated(devKustomization, name)!;

  describe.each([
    ['base', () => base],
    ['dev', () => dev],
  ] as const)('%s: every workload', (overlay, docsOf) => {
    const docs = docsOf();
    const all = workloads(docs);

    test('selects its own pods', () => {
      for (const w of all) expect([w.metadata.name, selects(w.spec.selector.matchLabels, w.spec.template.metadata.labels)]).toEqual([w.metadata.name, true]);
    });

    test('has readiness and liveness probes on every container', () => {
      for (const w of all) {
        for (const c of w.spec.template.spec.containers) {
          expect([w.metadata.name, c.name, Boolean(c.readinessProbe), Boolean(c.livenessProbe)]).toEqual([w.metadata.name, c.name, true, true]);
        }
      }
    });

    test('sets CPU and memory requests and limits, requests within limits', () => {
      for (const w of all) {
        for (const c of allContainers(w.spec.template.spec)) {
          const r = c.resources ?? {};
          const id = `${w.metadata.name}/${c.name}`;
          for (const k of ['cpu', 'memory']) expect([id, k, r.requests?.[k] !== undefined, r.limits?.[k] !== undefined]).toEqual([id, k, true, true]);
          expect([id, cpu(r.requests.cpu) <= cpu(r.limits.cpu)]).toEqual([id, true]);
          expect([id, bytes(r.requests.memory) <= bytes(r.limits.memory)]).toEqual([id, true]);
        }
      }
    });

    test('runs non-root, read-only, without privilege escalation or capabilities', () => {
      for (const w of all) {
        const spec = w.spec.template.spec;
        expect([w.metadata.name, spec.securityContext?.runAsNonRoot, spec.securityContext?.seccompProfile?.type]).toEqual([w.metadata.name, true, 'RuntimeDefault']);
        expect(spec.securityContext.runAsUser).toBeGreaterThan(0);
        for (const c of allContainers(spec)) {
          const sc = c.securityContext ?? {};
          expect([`${w.metadata.name}/${c.name}`, sc.allowPrivilegeEscalation, sc.readOnlyRootFilesystem, sc.capabilities?.drop]).toEqual([
            `${w.metadata.name}/${c.name}`,
            false,
            true,
            ['ALL'],
          ]);
        }
      }
    });

    test('mounts only volumes it declares', () => {
      for (const w of all) {
        const spec = w.spec.template.spec;
        const declared = new Set([...(spec.volumes ?? []).map((v: any) => v.name), ...(w.spec.volumeClaimTemplates ?? []).map((v: any) => v.metadata.name)]);
        for (const c of allContainers(spec)) for (const m of c.volumeMounts ?? []) expect([w.metadata.name, m.name, declared.has(m.name)]).toEqual([w.metadata.name, m.name, true]);
      }
    });

    test('references only ConfigMap and Secret keys that exist', () => {
      const configMaps = Object.fromEntries(ofKind(docs, 'ConfigMap').map((cm) => [cm.metadata.name, cm.data ?? {}]));
      // base: the Secrets are created out of band with the template's keys; dev: generated
      const secrets: Record<string, Record<string, unknown>> =
        overlay === 'base'
          ? Object.fromEntries(secretTemplates.map((t) => [t.metadata.name, t.stringData]))
          : Object.fromEntries(ofKind(docs, 'Secret').map((sec) => [sec.metadata.name, sec.data ?? {}]));
      for (const w of all) {
        const spec = w.spec.template.spec;
        for (const c of allContainers(spec)) {
          for (const e of c.env ?? []) {
            const cmRef = e.valueFrom?.configMapKeyRef;
            const secRef = e.valueFrom?.secretKeyRef;
            if (cmRef) expect([w.metadata.name, e.name, cmRef.key in (configMaps[cmRef.name] ?? {})]).toEqual([w.metadata.name, e.name, true]);
            if (secRef) expect([w.metadata.name, e.name, secRef.key in (secrets[secRef.name] ?? {})]).toEqual([w.metadata.name, e.name, true]);
          }
        }
        for (const v of spec.volumes ?? []) if (v.configMap) expect(configMaps).toHaveProperty([v.configMap.name]);
      }
    });

    test('is reached through a Service whose target ports exist', () => {
      for (const svc of ofKind(docs, 'Service')) {
        const w = all.find((x) => selects(svc.spec.selector, x.spec.template.metadata.labels));
        expect([svc.metadata.name, Boolean(w)]).toEqual([svc.metadata.name, true]);
        const container = mainContainer(w);
        for (const p of svc.spec.ports) {
          const target = portNumber(container, p.targetPort ?? p.port);
          expect([svc.metadata.name, p.name, container.ports.map((cp: any) => cp.containerPort)]).toEqual([svc.metadata.name, p.name, expect.arrayContaining([target])]);
        }
      }
    });

    test('components run under their own ServiceAccount, with no API token, spread over zones', () => {
      for (const w of all.filter((x) => [...COMPONENTS, 'otel-collector'].includes(x.metadata.name))) {
        const name = w.metadata.name;
        const spec = w.spec.template.spec;
        const sa = find(docs, 'ServiceAccount', name);
        expect([name, spec.serviceAccountName, sa?.automountServiceAccountToken, spec.automountServiceAccountToken]).toEqual([name, name, false, false]);
        const keys = spec.topologySpreadConstraints.map((t: any) => t.topologyKey);
        expect([name, keys]).toEqual([name, expect.arrayContaining(['topology.kubernetes.io/zone', 'kubernetes.io/hostname'])]);
        for (const t of spec.topologySpreadConstraints) expect(selects(t.labelSelector.matchLabels, w.spec.template.metadata.labels)).toBe(true);
      }
    });

    test('generated configuration is referenced by its hashed name, so a change rolls the pods', () => {
      const generatedNames = ofKind(docs, 'ConfigMap', 'Secret').map((d) => d.metadata.name);
      expect(generatedNames).toEqual(expect.arrayContaining([expect.stringMatching(/^crm-config-[a-z0-9]{10}$/)]));
      for (const w of all) {
        for (const c of allContainers(w.spec.template.spec)) {
          for (const e of c.env ?? []) {
            const ref = e.valueFrom?.configMapKeyRef ?? (overlay === 'dev' ? e.valueFrom?.secretKeyRef : undefined);
            if (ref) expect([w.metadata.name, e.name, generatedNames.includes(ref.name) && ref.name !== unhashed(ref.name)]).toEqual([w.metadata.name, e.name, true]);
          }
        }
      }
    });
  });

  describe.each(COMPONENTS)('%s', (c) => {
    const deployment = find(base, 'Deployment', c);
    const container = deployment && mainContainer(deployment);
    const env = container ? envMap(container) : {};

    test('is a Deployment running `start <component>` from its own image', () => {
      expect(deployment).toBeDefined();
      expect(container.args).toEqual(['start', c]);
      expect(container.image).toMatch(new RegExp(`^crm-${c}:`));
    });

    test('has the environment its role needs, secrets from its own Secret', () => {
      for (const key of [...ROLE_ENV[c]!, ...OTEL_ENV]) expect([c, key, key in env]).toEqual([c, key, true]);
      for (const key of SECRET_ENV.filter((k) => k in env)) expect([c, key, env[key].valueFrom?.secretKeyRef?.name]).toEqual([c, key, `crm-${c}`]);
      for (const x of allContainers(deployment.spec.template.spec)) {
        for (const e of x.env ?? []) if (e.valueFrom?.secretKeyRef) expect([c, e.name, e.valueFrom.secretKeyRef.name]).toEqual([c, e.name, `crm-${c}`]);
      }
      expect(env.OTEL_SERVICE_NAME.value).toBe(`crm-${c}`);
      expect(configMap.data[env.OTEL_EXPORTER_OTLP_ENDPOINT.valueFrom.configMapKeyRef.key]).toBe(OTLP_HTTP_ENDPOINT);
      if (env.DB_SCHEMA) expect(env.DB_SCHEMA.value).toBe(c);
      if (env.DATABASE_URL) expect(env.DATABASE_URL.valueFrom.secretKeyRef.key).toBe('DATABASE_URL');
      // Every user of NATS keeps the stream with the same number of copies: one shared value.
      if (env.NATS_URL) {
        for (const key of ['NATS_URL', 'NATS_STREAM_REPLICAS']) expect([c, key, env[key]?.valueFrom?.configMapKeyRef?.key]).toEqual([c, key, key]);
      }
    });

    test('has at least the environment docker-compose gives it', () => {
      const compose = loadOne(path.join(ROOT, 'docker-compose.yml'));
      for (const key of Object.keys(compose.services[c].environment)) expect([c, key, key in env]).toEqual([c, key, true]);
    });

    test('listens where its Service, probes and peers expect', () => {
      const port = PORTS[c]!;
      expect(container.ports.map((p: any) => p.containerPort)).toEqual(c === 'messaging' ? [port, INBOUND_SMTP_PORT, METRICS_PORT] : [port, METRICS_PORT]);
      // /metrics on its own port, named for the PodMonitor and the NetworkPolicy, where the annotations say.
      expect(portNumber(container, 'metrics')).toBe(METRICS_PORT);
      expect([configMap.data.METRICS_HOST, Number(configMap.data.METRICS_PORT)]).toEqual(['0.0.0.0', METRICS_PORT]);
      for (const key of ['METRICS_HOST', 'METRICS_PORT']) expect(env[key].valueFrom.configMapKeyRef.key).toBe(key);
      expect(deployment.spec.template.metadata.annotations).toEqual({
        'prometheus.io/scrape': 'true',
        'prometheus.io/port': String(METRICS_PORT),
        'prometheus.io/path': '/metrics',
      });
      const svc = find(base, 'Service', c);
      expect(selects(svc.spec.selector, deployment.spec.template.metadata.labels)).toBe(true);
      if (c === 'gateway') {
        expect(env.HOST.value).toBe('0.0.0.0');
        expect(Number(env.PORT.value)).toBe(port);
        expect(container.readinessProbe.httpGet.path).toBe('/readyz');
        expect(container.livenessProbe.httpGet.path).toBe('/healthz');
        for (const p of [container.readinessProbe, container.livenessProbe]) expect(portNumber(container, p.httpGet.port)).toBe(port);
      } else {
        expect(env.GRPC_ADDR.value).toBe(`0.0.0.0:${port}`);
        // Kubernetes' native gRPC probe (grpc.health.v1); its port must be a number
        for (const p of [container.readinessProbe, container.livenessProbe, container.startupProbe]) expect(p.grpc.port).toBe(port);
        // peers dial `<service>:<port>` from the ConfigMap: the Service must serve that port
        const addr = endpoint(configMap.data[`${c.toUpperCase()}_ADDR`]);
        expect(addr).toEqual({ host: svc.metadata.name, port: svc.spec.ports[0].port });
        expect(portNumber(container, svc.spec.ports[0].targetPort)).toBe(port);
        // Headless, so the name resolves to every pod and callers balance over them (round robin);
        // no virtual IP translates ports then: the Service's port is the container's.
        expect([c, svc.spec.clusterIP, svc.spec.ports[0].port]).toEqual([c, 'None', port]);
      }
      if (c === 'messaging') {
        expect(endpoint(env.INBOUND_SMTP_ADDR.value)).toEqual({ host: '0.0.0.0', port: INBOUND_SMTP_PORT });
        const smtp = find(base, 'Service', 'messaging-smtp');
        expect(smtp.spec.type).toBe('LoadBalancer');
        expect(smtp.spec.ports.map((p: any) => [p.port, portNumber(container, p.targetPort)])).toEqual([[25, INBOUND_SMTP_PORT]]);
      }
    });

    test('can write /tmp despite the read-only root filesystem', () => {
      const tmp = container.volumeMounts.find((m: any) => m.mountPath === '/tmp');
      expect(deployment.spec.template.spec.volumes.find((v: any) => v.name === tmp.name).emptyDir).toBeDefined();
    });

    test('survives voluntary disruptions', () => {
      const pdb = ofKind(base, 'PodDisruptionBudget').find((p) => selects(p.spec.selector.matchLabels, deployment.spec.template.metadata.labels));
      expect(pdb).toBeDefined();
      if (c === 'gateway') expect(deployment.spec.replicas).toBeUndefined(); // owned by the autoscaler
      else expect(deployment.spec.replicas).toBeGreaterThanOrEqual(2);
    });

    if (POSTGRES_SERVICES.includes(c)) {
      test('migrates its schema first with the migrate role; runs with the app role and DB_MIGRATE=skip', () => {
        const init = deployment.spec.template.spec.initContainers.find((i: any) => i.args?.[0] === 'migrate');
        expect(init.args).toEqual(['migrate', c]);
        expect(init.image).toBe(container.image);
        const initEnv = envMap(init);
        expect(initEnv.DATABASE_URL.valueFrom.secretKeyRef).toEqual({ name: `crm-${c}`, key: 'MIGRATE_DATABASE_URL' });
        expect(env.DATABASE_URL.valueFrom.secretKeyRef).toEqual({ name: `crm-${c}`, key: 'DATABASE_URL' });
        expect(env.DB_MIGRATE.value).toBe('skip');
        expect(initEnv.DB_SCHEMA.value).toBe(env.DB_SCHEMA.value);
        // the migrate credentials reach the init container only
        expect(JSON.stringify(deployment.spec.template.spec.containers)).not.toContain('MIGRATE_DATABASE_URL');
      });
    }
  });

  test('the gateway scales horizontally between at least 2 replicas', () => {
    const hpa = ofKind(base, 'HorizontalPodAutoscaler').find((h) => h.spec.scaleTargetRef.name === 'gateway');
    expect(hpa.spec.scaleTargetRef).toMatchObject({ apiVersion: 'apps/v1', kind: 'Deployment' });
    expect(hpa.spec.minReplicas).toBeGreaterThanOrEqual(2);
    expect(hpa.spec.maxReplicas).toBeGreaterThan(hpa.spec.minReplicas);
    expect(mainContainer(find(base, 'Deployment', 'gateway')).resources.requests.cpu).toBeDefined();
  });

  test('every PodDisruptionBudget covers a workload', () => {
    for (const pdb of ofKind(dev, 'PodDisruptionBudget')) {
      const covered = workloads(dev).some((w) => selects(pdb.spec.selector.matchLabels, w.spec.template.metadata.labels));
      expect([pdb.metadata.name, covered]).toEqual([pdb.metadata.name, true]);
    }
  });

  test('the collector Deployment serves OTLP where the components send it', () => {
    const w = find(base, 'Deployment', 'otel-collector');
    const c = mainContainer(w);
    const config = loadOne(path.join(ROOT, COLLECTOR_CONFIG));
    const svc = find(base, 'Service', 'otel-collector');
    const target = endpoint(configMap.data.OTEL_EXPORTER_OTLP_ENDPOINT);
    expect(target.host).toBe(svc.metadata.name);
    const port = svc.spec.ports.find((p: any) => p.port === target.port);
    expect(portNumber(c, port.targetPort)).toBe(endpoint(config.receivers.otlp.protocols.http.endpoint).port);
    expect(portNumber(c, c.livenessProbe.httpGet.port)).toBe(endpoint(config.extensions.health_check.endpoint).port);
    const mount = c.volumeMounts.find((m: any) => w.spec.template.spec.volumes.find((v: any) => v.name === m.name).configMap);
    expect(c.args).toContain(`--config=${mount.mountPath}/config.yaml`);
  });

  describe('dev overlay', () => {
    const compose = loadOne(path.join(ROOT, 'docker-compose.yml'));

    test('runs every backing service the components dial, with the images compose uses', () => {
      for (const name of ['postgres', 'mongo', 'redis', 'nats']) {
        const sts = find(dev, 'StatefulSet', name);
        expect([name, Boolean(sts), Boolean(find(dev, 'Service', name))]).toEqual([name, true, true]);
        expect(mainContainer(sts).image).toBe(compose.services[name].image);
      }
      expect(mainContainer(find(base, 'Deployment', 'otel-collector')).image).toBe(compose.services['otel-collector'].image);
      for (const { workload, spec } of podTemplates(dev)) {
        for (const c of allContainers(spec)) {
          if (!c.image.startsWith('crm-')) expect([workload.metadata.name, IMAGES[workload.metadata.name]?.test(c.image)]).toEqual([workload.metadata.name, true]);
        }
      }
    });

    test('its secrets are dev-only values that reach the dev backing services, each service with its own roles', () => {
      const directory = devSecrets('crm-directory');
      // every component's SECRETS_KEY (the directory's, webhooks'): 32 bytes, dev-only
      for (const c of COMPONENTS.filter((x) => devSecrets(`crm-${x}`)?.SECRETS_KEY !== undefined)) {
        const key = Buffer.from(devSecrets(`crm-${c}`).SECRETS_KEY!, 'base64');
        expect([c, key.length]).toEqual([c, 32]);
        expect([c, key.toString()]).toEqual([c, expect.stringMatching(/^dev-only-/)]);
      }
      expect(directory.SECRETS_KEY).toBeDefined();
      expect(directory.KEY_PEPPER).toMatch(/^dev-only-/);
      const pgSecret = devSecrets('postgres-dev');
      const pgEnv = envMap(mainContainer(find(dev, 'StatefulSet', 'postgres')));
      const pgService = find(dev, 'Service', 'postgres');
      for (const c of POSTGRES_SERVICES) {
        const secret = devSecrets(`crm-${c}`);
        expect(secret.CURSOR_SECRET).toMatch(/^dev-only-/);
        for (const [k, role, password] of [
          ['DATABASE_URL', `${c}_app`, pgSecret.DB_APP_PASSWORD],
          ['MIGRATE_DATABASE_URL', `${c}_migrate`, pgSecret.DB_MIGRATE_PASSWORD],
        ] as const) {
          const u = new URL(secret[k]!);
          expect([c, k, u.hostname, Number(u.port), u.username, decodeURIComponent(u.password), u.pathname]).toEqual([
            c,
            k,
            pgService.metadata.name,
            pgService.spec.ports[0].port,
            role,
            password,
            `/${pgEnv.POSTGRES_DB.value}`,
          ]);
        }
      }
      const service = (name: string) => find(dev, 'Service', name);
      expect(endpoint(directory.MONGO_URL!)).toEqual({ host: 'mongo', port: service('mongo').spec.ports[0].port });
      for (const c of ['gateway', 'messaging']) expect(endpoint(devSecrets(`crm-${c}`).REDIS_URL!)).toEqual({ host: 'redis', port: service('redis').spec.ports[0].port });
      const nats = endpoint(configMap.data.NATS_URL);
      expect(nats).toEqual({ host: 'nats', port: service('nats').spec.ports.find((p: any) => p.name === 'client').port });
    });

    test('Postgres creates the services\' roles at its first start', () => {
      const sts = find(dev, 'StatefulSet', 'postgres');
      const c = mainContainer(sts);
      const volumes = Object.fromEntries(sts.spec.template.spec.volumes.map((v: any) => [v.name, v]));
      const mountOf = (key: string) => {
        const m = c.volumeMounts.find((x: any) => volumes[x.name]?.configMap && unhashed(volumes[x.name].configMap.name) === 'postgres-init' && volumes[x.name].configMap.items.some((i: any) => i.key === key));
        return `${m.mountPath}/${key}`;
      };
      expect(mountOf('init-roles.sh')).toBe('/docker-entrypoint-initdb.d/init-roles.sh');
      expect(envMap(c).ROLES_SQL.value).toBe(mountOf('roles.sql'));
    });

    test('NATS runs JetStream on its persistent volume', () => {
      const sts = find(dev, 'StatefulSet', 'nats');
      const c = mainContainer(sts);
      expect(c.args).toContain('--jetstream');
      const storeDir = c.args.find((a: string) => a.startsWith('--store_dir=')).split('=')[1];
      const mount = c.volumeMounts.find((m: any) => m.mountPath === storeDir);
      expect(sts.spec.volumeClaimTemplates.map((v: any) => v.metadata.name)).toContain(mount.name);
    });

    test('NATS is a 3-node JetStream cluster holding as many copies of the stream as the services ask for', () => {
      const sts = find(dev, 'StatefulSet', 'nats');
      const c = mainContainer(sts);
      const arg = (name: string) => c.args.find((a: string) => a.startsWith(`--${name}=`))?.slice(name.length + 3);
      const replicas = sts.spec.replicas;
      expect(replicas).toBe(3);
      expect(Number(configMap.data.NATS_STREAM_REPLICAS)).toBe(replicas);
      // Each pod a server named after itself, one cluster name, routes to every pod by its stable name.
      expect(arg('server_name')).toBe('$(POD_NAME)');
      expect(envMap(c).POD_NAME.valueFrom.fieldRef.fieldPath).toBe('metadata.name');
      expect(arg('cluster_name')).toBeTruthy();
      const routePort = c.ports.find((p: any) => p.name === 'cluster').containerPort;
      expect(endpoint(arg('cluster')!).port).toBe(routePort);
      const headless = find(dev, 'Service', sts.spec.serviceName);
      expect([headless.spec.clusterIP, headless.spec.publishNotReadyAddresses]).toEqual(['None', true]);
      expect(headless.spec.selector).toEqual(sts.spec.selector.matchLabels);
      expect(arg('routes')!.split(',').map(endpoint)).toEqual(
        Array.from({ length: replicas }, (_, i) => ({ host: `${sts.metadata.name}-${i}.${headless.metadata.name}`, port: routePort })),
      );
    });
  });
});

// ------------------------------------------------------------------------------------------------
// The health check script the image runs (compose healthchecks and Docker's HEALTHCHECK)
// ------------------------------------------------------------------------------------------------

describe('infra/docker/healthcheck.cjs', () => {
  const grpc = require('@grpc/grpc-js');
  const identity = (b: Buffer) => b;
  const healthService = {
    Check: {
      path: '/grpc.health.v1.Health/Check',
      requestStream: false,
      responseStream: false,
      requestSerialize: identity,
      requestDeserialize: identity,
      responseSerialize: identity,
      responseDeserialize: identity,
    },
  };
  let server: any;
  let grpcPort = 0;
  let status = 1;
  let askedFor: string[] = [];
  let httpServer: http.Server;
  let httpPort = 0;
  let readyStatus = 200;

  beforeAll(async () => {
    server = new grpc.Server();
    server.addService(healthService, {
      Check: (call: any, callback: (err: unknown, res?: Buffer) => void) => {
        const req: Buffer = call.request;
        askedFor.push(req.length > 2 ? req.subarray(2).toString() : '');
        callback(null, status === 0 ? Buffer.alloc(0) : Buffer.from([0x08, status]));
      },
    });
    grpcPort = await new Promise<number>((resolve, reject) =>
      server.bindAsync('127.0.0.1:0', grpc.ServerCredentials.createInsecure(), (err: Error | null, port: number) =>
        err ? reject(err) : resolve(port),
      ),
    );
    httpServer = http.createServer((req, res) => {
      res.statusCode = req.url === '/readyz' ? readyStatus : 404;
      res.end();
    });
    await new Promise<void>((resolve) => httpServer.listen(0, '127.0.0.1', resolve));
    httpPort = (httpServer.address() as AddressInfo).port;
  });

  afterAll(async () => {
    await new Promise<void>((resolve) => server.tryShutdown(() => resolve()));
    await new Promise<void>((resolve) => httpServer.close(() => resolve()));
  });

  beforeEach(() => {
    status = 1;
    readyStatus = 200;
    askedFor = [];
  });

  const run = (args: string[], env: Record<string, string> = {}) =>
    new Promise<number>((resolve, reject) => {
      const child = spawn(process.execPath, [path.join(ROOT, HEALTHCHECK), ...args], {
        cwd: ROOT,
        env: { PATH: process.env.PATH ?? '', HEALTHCHECK_TIMEOUT_MS: '2000', ...env },
        stdio: 'ignore',
      });
      child.on('error', reject);
      child.on('exit', (code) => resolve(code ?? -1));
    });

  test('gRPC: healthy only while the server reports SERVING', async () => {
    expect(await run(['grpc', `127.0.0.1:${grpcPort}`])).toBe(0);
    status = 2; // NOT_SERVING
    expect(await run(['grpc', `127.0.0.1:${grpcPort}`])).toBe(1);
    status = 0; // UNKNOWN (the field left out)
    expect(await run(['grpc', `127.0.0.1:${grpcPort}`])).toBe(1);
  });

  test('gRPC: asks for the overall status, or the named service', async () => {
    await run(['grpc', `127.0.0.1:${grpcPort}`]);
    await run(['grpc', `127.0.0.1:${grpcPort}`, 'crm.people.v1.PeopleService']);
    expect(askedFor).toEqual(['', 'crm.people.v1.PeopleService']);
  });

  test('gRPC: unhealthy when nothing listens', async () => {
    const probe = http.createServer();
    await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
    const closedPort = (probe.address() as AddressInfo).port;
    await new Promise<void>((resolve) => probe.close(() => resolve()));
    expect(await run(['grpc', `127.0.0.1:${closedPort}`])).toBe(1);
  });

  test('HTTP: healthy on 2xx only', async () => {
    expect(await run(['http', `http://127.0.0.1:${httpPort}/readyz`])).toBe(0);
    readyStatus = 503;
    expect(await run(['http', `http://127.0.0.1:${httpPort}/readyz`])).toBe(1);
  });

  test('without arguments it checks what the environment configures', async () => {
    expect(await run([], { GRPC_ADDR: `0.0.0.0:${grpcPort}` })).toBe(0);
    expect(askedFor).toEqual(['']);
    expect(await run([], { PORT: String(httpPort) })).toBe(0);
    readyStatus = 503;
    expect(await run([], { PORT: String(httpPort) })).toBe(1);
  });
});
