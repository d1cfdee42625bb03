/**
 * What the deployment files must agree with, taken from the command line itself (its component
 * list, ports and settings), and the Kubernetes overlays as kustomize renders them.
 */
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { requireServices } from '@crm/kit/testing';
import { DEFAULT_PORTS, type ConfigSchema } from '../../packages/kit/src';
import { SERVICE_COMPONENTS } from '../../packages/cli/src/components';
import { COMMON, addressSettings } from '../../packages/cli/src/settings';
import { GATEWAY_SETTINGS } from '../../gateway/src/settings';

/* eslint-disable @typescript-eslint/no-explicit-any, @typescript-eslint/no-require-imports */

export const ROOT = path.resolve(__dirname, '..', '..');
export const K8S = path.join(ROOT, 'infra', 'k8s');
export const OVERLAYS = ['base', 'dev'] as const;
export type Overlay = (typeof OVERLAYS)[number];

/**
 * Components whose deployment files exist before the command line can run them (none now: webhooks
 * joined). Remove each name here (and from PLANNED_POSTGRES) when it joins SERVICE_COMPONENTS: the
 * first test of deploy-files.test.ts fails until then, since a planned component that is already a
 * CLI component is an error.
 */
export const PLANNED_COMPONENTS = [] as readonly string[];
/** Planned components that will keep a Postgres schema. */
const PLANNED_POSTGRES = new Set<string>();

export const CLI_SERVICES = SERVICE_COMPONENTS.map((c) => c.name);
/** Every deployable component: the gateway, the command line's services, then the planned ones. */
export const COMPONENTS: string[] = ['gateway', ...CLI_SERVICES, ...PLANNED_COMPONENTS.filter((p) => !CLI_SERVICES.includes(p))];
export const SERVICES = COMPONENTS.filter((c) => c !== 'gateway');
export const POSTGRES_SERVICES = SERVICES.filter((c) => SERVICE_COMPONENTS.find((s) => s.name === c)?.database || PLANNED_POSTGRES.has(c));
export const PORTS: Record<string, number> = Object.fromEntries(
  COMPONENTS.map((c) => [c, SERVICE_COMPONENTS.find((s) => s.name === c)?.defaultPort ?? DEFAULT_PORTS[c as keyof typeof DEFAULT_PORTS]]),
);
/** Inbound SMTP of messaging (INBOUND_SMTP_ADDR), in compose and Kubernetes. */
export const INBOUND_SMTP_PORT = 2525;
/** /metrics of every component (METRICS_PORT's default), in compose and Kubernetes. */
export { DEFAULT_METRICS_PORT as METRICS_PORT } from '../../packages/kit/src/telemetry';

/**
 * Every variable a component reads (`crm start <component>`, read once with readConfig), or
 * undefined for a planned component the command line does not know yet.
 */
export function settingsOf(component: string): Set<string> | undefined {
  if (component === 'gateway') return new Set(Object.keys({ ...COMMON, ...GATEWAY_SETTINGS, ...addressSettings(SERVICES_WITH_ADDRESSES) }));
  const found = SERVICE_COMPONENTS.find((c) => c.name === component);
  if (!found) return undefined;
  const schema: ConfigSchema = { ...COMMON, ...found.settings('component'), ...addressSettings(SERVICES_WITH_ADDRESSES.filter((n) => n !== component)) };
  return new Set([...Object.keys(schema), 'GRPC_ADDR']);
}
const SERVICES_WITH_ADDRESSES = (Object.keys(DEFAULT_PORTS) as (keyof typeof DEFAULT_PORTS)[]).filter((n) => n !== 'gateway');
/**
 * Variables every process reads outside readConfig: OpenTelemetry's and the metrics endpoint's
 * (read by the telemetry bootstrap, before anything else loads), Node's, the pod's identity.
 */
export const AMBIENT_ENV = /^(OTEL_[A-Z_]+|METRICS_HOST|METRICS_PORT|NODE_OPTIONS|POD_NAME|POD_NAMESPACE)$/;

// ------------------------------------------------------------------------------------------------
// YAML
// ------------------------------------------------------------------------------------------------

/** Every document of a YAML source, anchors and merge keys (`<<:`) resolved, duplicate keys refused. */
export function parseYaml(src: string, file: string): any[] {
  const Y = require('yaml');
  return Y.parseAllDocuments(src, { merge: true, uniqueKeys: true })
    .map((doc: any) => {
      if (doc.errors.length > 0) throw new Error(`${file}: ${doc.errors[0].message}`);
      return doc.toJS({ maxAliasCount: -1 });
    })
    .filter((d: unknown) => d != null);
}
export const loadYaml = (file: string): any[] => parseYaml(fs.readFileSync(file, 'utf8'), file);

// ------------------------------------------------------------------------------------------------
// kustomize
// ------------------------------------------------------------------------------------------------

/** `kubectl kustomize` (kustomize built into kubectl; no cluster needed), when this machine has it. */
export const kustomizeAvailable: boolean = (() => {
  try {
    execFileSync('kubectl', ['kustomize', '--help'], { stdio: 'ignore', timeout: 20_000 });
    return true;
  } catch {
    if (requireServices()) throw new Error('kubectl (for `kubectl kustomize`) is required (CRM_REQUIRE_SERVICES=1) to render the overlays');
    // eslint-disable-next-line no-console
    console.warn('kubectl is not installed: the rendered Kubernetes overlays are not checked');
    return false;
  }
})();

/** Renders a kustomization folder the way `kubectl apply -k` would. */
export function render(dir: string): any[] {
  const out = execFileSync('kubectl', ['kustomize', dir], { encoding: 'utf8', maxBuffer: 64 * 1024 * 1024, timeout: 60_000 });
  return parseYaml(out, `kubectl kustomize ${dir}`);
}

/**
 * A copy of infra/k8s in a temporary folder, changed by `edit` and rendered: what an operator's
 * edit (a new image tag, a changed setting) does to the manifests.
 */
export function renderEdited(overlay: Overlay, edit: (k8sCopy: string) => void): any[] {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'crm-k8s-'));
  try {
    fs.cpSync(K8S, dir, { recursive: true });
    edit(dir);
    return render(path.join(dir, overlay));
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

export const rendered: Record<Overlay, any[]> = kustomizeAvailable
  ? { base: render(path.join(K8S, 'base')), dev: render(path.join(K8S, 'dev')) }
  : { base: [], dev: [] };

export const ofKind = (docs: any[], ...kinds: string[]) => docs.filter((d) => kinds.includes(d.kind));
export const find = (docs: any[], kind: string, name: string) => docs.find((d) => d.kind === kind && d.metadata.name === name);
export const podTemplates = (docs: any[]) =>
  ofKind(docs, 'Deployment', 'StatefulSet', 'DaemonSet', 'Job').map((w) => ({ workload: w, spec: w.spec.template.spec, labels: w.spec.template.metadata?.labels ?? {} }));
export const allContainers = (spec: any): any[] => [...(spec.initContainers ?? []), ...spec.containers];
export const mainContainer = (w: any) => w.spec.template.spec.containers.find((c: any) => c.name === w.metadata.name) ?? w.spec.template.spec.containers[0];
export const envMap = (c: any): Record<string, any> => Object.fromEntries((c.env ?? []).map((e: any) => [e.name, e]));
/** A generated ConfigMap or Secret's name without kustomize's content hash (`crm-config-6hh47dm94f`; no vowels). */
export const unhashed = (name: string) => name.replace(/-[bcdfghjklmnpqrstvwxz2456789]{10}$/, '');
