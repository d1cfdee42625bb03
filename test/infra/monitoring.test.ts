/**
 * Dashboards and alerts as code (infra/prometheus, infra/grafana, infra/k8s/monitoring), checked
 * against what the processes export: every series and label an alert, an alert's unit test or a
 * panel reads is one of the metric catalogue's (packages/kit/src/metrics.ts: what the code records,
 * and the runtime's), under the name /metrics serves it (which the kit's telemetry test holds
 * against a real scrape); every instrument has a panel, every alert a unit test; and with promtool
 * (Debian's prometheus package, which CI installs) the scrape configuration, the rules, the alerts'
 * unit tests, every panel's PromQL and a real /metrics are checked as Prometheus itself would.
 */
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { requireServices, scrapeFreshProcess } from '@crm/kit/testing';
import { INSTRUMENTS, type InstrumentName, RUNTIME_INSTRUMENTS, type RuntimeInstrumentName, prometheusName } from '../../packages/kit/src/metrics';
import { COMPONENTS, METRICS_PORT, ROOT, find, kustomizeAvailable, loadYaml, podTemplates, rendered } from './deploy-facts';

/* eslint-disable @typescript-eslint/no-explicit-any */

const PROMETHEUS = path.join(ROOT, 'infra', 'prometheus');
const GRAFANA = path.join(ROOT, 'infra', 'grafana');
const alerts = loadYaml(path.join(PROMETHEUS, 'alerts.yml'))[0];
const alertTests = loadYaml(path.join(PROMETHEUS, 'alerts.test.yml'))[0];
const scrapeConfig = loadYaml(path.join(PROMETHEUS, 'prometheus.yml'))[0];
const dashboard = JSON.parse(fs.readFileSync(path.join(GRAFANA, 'dashboards', 'crm.json'), 'utf8'));
const datasources = loadYaml(path.join(GRAFANA, 'provisioning', 'datasources', 'prometheus.yml'))[0];
const compose = loadYaml(path.join(ROOT, 'docker-compose.yml'))[0];

const rules: any[] = alerts.groups.flatMap((g: any) => g.rules);
const panels: any[] = dashboard.panels.filter((p: any) => p.type !== 'row');
const panelExprs: string[] = panels.flatMap((p) => p.targets.map((t: any) => t.expr));

// ------------------------------------------------------------------------------------------------
// The series and labels of the catalogue, as Prometheus sees them
// ------------------------------------------------------------------------------------------------

const CATALOGUE = { ...INSTRUMENTS, ...RUNTIME_INSTRUMENTS };
type CatalogueName = InstrumentName | RuntimeInstrumentName;
const SERIES = new Map<string, CatalogueName>();
for (const name of Object.keys(CATALOGUE) as CatalogueName[]) {
  const base = prometheusName(name);
  const suffixes = CATALOGUE[name].kind === 'histogram' ? ['_bucket', '_sum', '_count'] : [''];
  for (const suffix of suffixes) SERIES.set(base + suffix, name);
}
const labelOf = (attribute: string) => attribute.replace(/[^a-zA-Z0-9_]/g, '_');
/** Labels Prometheus adds itself, or the scrape configuration does. */
const TARGET_LABELS = new Set(['job', 'instance', 'component', 'le', '__name__']);
const PROMQL_WORDS = new Set([
  'sum', 'max', 'min', 'avg', 'count', 'by', 'without', 'rate', 'increase', 'irate', 'histogram_quantile', 'clamp_min', 'on', 'ignoring',
  'and', 'or', 'unless', 'bool', 'offset', 'topk', 'bottomk', 'abs', 'up', 'vector', 'time', 'humanizeDuration', 'label_replace',
]);

/**
 * What an expression reads: metric names, and the labels it matches or groups by (a label_replace
 * reads its source label); `made` are the labels a label_replace writes, which later groupings may use.
 */
function parsePromQL(expr: string): { metrics: string[]; labels: string[]; made: string[] } {
  const labels: string[] = [];
  const made: string[] = [];
  // label_replace(v, "dst", "replacement", "src", "regex"): its last four arguments.
  for (const [, dst, src] of expr.matchAll(/"([a-zA-Z_]\w*)"\s*,\s*"[^"]*"\s*,\s*"([a-zA-Z_]\w*)"\s*,\s*"[^"]*"\s*\)/g)) {
    made.push(dst!);
    labels.push(src!);
  }
  const bare = expr
    .replace(/\{([^}]*)\}/g, (_m, inner: string) => {
      for (const [, label] of inner.matchAll(/([a-zA-Z_][a-zA-Z0-9_]*)\s*(=~|!~|!=|=)/g)) labels.push(label!);
      return '';
    })
    .replace(/\b(by|without|on|ignoring)\s*\(([^)]*)\)/g, (_m, _w, inner: string) => {
      labels.push(...inner.split(',').map((l) => l.trim()).filter(Boolean));
      return '';
    })
    .replace(/"[^"]*"/g, '')
    .replace(/\[[^\]]*\]/g, '');
  const metrics = [...bare.matchAll(/[a-zA-Z_:][a-zA-Z0-9_:]*/g)].map((m) => m[0]).filter((t) => !PROMQL_WORDS.has(t) && !/^\d/.test(t));
  return { metrics: [...metrics, ...(/\bup\b/.test(bare) ? ['up'] : [])], labels, made };
}

/** Problems with an expression: a series no process exports, a label its series never carry. */
function unknownIn(expr: string): string[] {
  const { metrics, labels, made } = parsePromQL(expr);
  const problems: string[] = [];
  const allowed = new Set(TARGET_LABELS);
  for (const metric of metrics) {
    if (metric === 'up') continue;
    const instrument = SERIES.get(metric);
    if (!instrument) problems.push(`series ${metric}`);
    else for (const attribute of CATALOGUE[instrument].attributes) allowed.add(labelOf(attribute));
  }
  for (const label of labels) if (!allowed.has(label) && !made.includes(label)) problems.push(`label ${label}`);
  return problems;
}

/** Problems with an input series of an alert's unit test (`name{label="value", ...}`). */
function unknownInSeries(series: string): string[] {
  const [, name, inner = ''] = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})?$/.exec(series.trim()) ?? [];
  if (!name) return [`unparsable ${series}`];
  const selector = inner.trim() ? `${name}{${inner}}` : name;
  return unknownIn(selector);
}

describe('the expressions read only what the processes export', () => {
  test('the checker itself refuses a series or a label that does not exist', () => {
    expect(unknownIn('sum by (crm_context) (rate(crm_outbox_published_total[5m]))')).toEqual([]);
    expect(unknownIn('rate(crm_outbox_publish_total[5m])')).toEqual(['series crm_outbox_publish_total']);
    expect(unknownIn('sum by (workspace_id) (rate(crm_outbox_published_total[5m]))')).toEqual(['label workspace_id']);
    expect(unknownIn('crm_engine_due{crm_context="x"}')).toEqual(['label crm_context']);
    // Names and labels this catalogue no longer exports (before units in names and current conventions).
    expect(unknownIn('rate(http_server_request_duration_count[5m])')).toEqual(['series http_server_request_duration_count']);
    expect(unknownIn('max(crm_outbox_oldest_age)')).toEqual(['series crm_outbox_oldest_age']);
    expect(unknownIn('rate(rpc_server_call_duration_seconds_count{rpc_grpc_status_code="5"}[5m])')).toEqual(['label rpc_grpc_status_code']);
    // A label made by label_replace may be grouped by; its source must exist.
    const byService = (source: string) =>
      `sum by (rpc_service) (label_replace(rate(rpc_server_call_duration_seconds_count[5m]), "rpc_service", "$1", "${source}", "([^/]+)/.*"))`;
    expect(unknownIn(byService('rpc_method'))).toEqual([]);
    expect(unknownIn(byService('rpc_path'))).toEqual(['label rpc_path']);
    expect(unknownInSeries('nodejs_eventloop_delay_p99_seconds{instance="a"}')).toEqual([]);
    expect(unknownInSeries('rpc_server_duration_count{rpc_service="x"}')).toEqual(['series rpc_server_duration_count', 'label rpc_service']);
  });

  test.each(rules.map((r) => [r.alert, r.expr]))('alert %s', (_name, expr) => {
    expect(unknownIn(expr)).toEqual([]);
  });

  test.each(panels.map((p) => [p.title, p.targets.map((t: any) => t.expr)]))('panel "%s"', (_title, exprs) => {
    for (const expr of exprs as string[]) expect([expr, unknownIn(expr.replace(/\$__rate_interval/g, '5m'))]).toEqual([expr, []]);
  });

  test('the alerts\' unit tests feed series that exist, with labels they carry', () => {
    const series: string[] = alertTests.tests.flatMap((t: any) => t.input_series.map((s: any) => s.series));
    expect(series.map((s) => [s, unknownInSeries(s)]).filter(([, problems]) => problems.length > 0)).toEqual([]);
  });

  test('every instrument the code records is on the dashboard, and the runtime\'s event loop, heap, GC, CPU and memory', () => {
    const shown = new Set(panelExprs.flatMap((e) => parsePromQL(e.replace(/\$__rate_interval/g, '5m')).metrics).map((m) => SERIES.get(m)));
    expect((Object.keys(INSTRUMENTS) as InstrumentName[]).filter((name) => !shown.has(name))).toEqual([]);
    const runtime: RuntimeInstrumentName[] = ['nodejs.eventloop.delay.p99', 'v8js.memory.heap.used', 'v8js.gc.duration', 'process.cpu.time', 'process.memory.usage'];
    expect(runtime.filter((name) => !shown.has(name))).toEqual([]);
  });
});

describe('alert rules', () => {
  test('every alert has a severity, a summary and a description, and a unit test in alerts.test.yml', () => {
    const tested = new Set(alertTests.tests.flatMap((t: any) => t.alert_rule_test.filter((a: any) => a.exp_alerts.length > 0).map((a: any) => a.alertname)));
    for (const rule of rules) {
      expect([rule.alert, ['critical', 'warning', 'info'].includes(rule.labels?.severity)]).toEqual([rule.alert, true]);
      expect([rule.alert, Boolean(rule.annotations?.summary && rule.annotations?.description)]).toEqual([rule.alert, true]);
      expect([rule.alert, tested.has(rule.alert)]).toEqual([rule.alert, true]);
    }
    expect(new Set(rules.map((r) => r.alert)).size).toBe(rules.length);
  });

  test('the failure modes that matter each have an alert', () => {
    const watched = (series: string) => rules.some((r) => parsePromQL(r.expr).metrics.some((m) => m === series));
    for (const series of [
      'up',
      'http_server_request_duration_seconds_count', // error rate
      'rpc_server_call_duration_seconds_count', // a service's failures
      'crm_events_consumer_pending', // consumer lag
      'crm_outbox_oldest_age_seconds', // outbox age
      'crm_engine_oldest_due_age_seconds', // engine backlog
      'crm_mail_delivery_duration_seconds_count', // delivery failures
      'crm_webhook_queue_oldest_due_age_seconds', // webhook deliveries waiting
      'crm_refusals_total', // quota exhaustion
      'nodejs_eventloop_delay_p99_seconds', // a blocked event loop
    ]) {
      expect([series, watched(series)]).toEqual([series, true]);
    }
  });
});

describe('the dashboard', () => {
  test('is a Grafana dashboard whose panels read the provisioned data source', () => {
    expect(dashboard).toMatchObject({ uid: 'crm-overview', title: expect.any(String), schemaVersion: expect.any(Number) });
    const [source] = datasources.datasources;
    expect(source).toMatchObject({ type: 'prometheus', url: 'http://prometheus:9090' });
    for (const panel of panels) {
      expect([panel.title, panel.datasource]).toEqual([panel.title, { type: 'prometheus', uid: source.uid }]);
      expect([panel.title, panel.targets.length > 0]).toEqual([panel.title, true]);
      for (const target of panel.targets) expect(target.datasource).toEqual(panel.datasource);
    }
    const ids = dashboard.panels.map((p: any) => p.id);
    expect(new Set(ids).size).toBe(ids.length);
  });

  test('no two panels overlap on the 24-column grid', () => {
    const cells = new Set<string>();
    for (const panel of dashboard.panels) {
      const { x, y, w, h } = panel.gridPos;
      expect([panel.title, x >= 0 && x + w <= 24]).toEqual([panel.title, true]);
      for (let row = y; row < y + h; row++) {
        for (let col = x; col < x + w; col++) {
          expect([panel.title, cells.has(`${row}:${col}`)]).toEqual([panel.title, false]);
          cells.add(`${row}:${col}`);
        }
      }
    }
  });
});

describe('scraping', () => {
  test('the compose scrape configuration reads /metrics of every component, with its alert rules', () => {
    const [job] = scrapeConfig.scrape_configs;
    expect(job).toMatchObject({ job_name: 'crm', metrics_path: '/metrics' });
    const targets = job.static_configs.map((c: any) => `${c.targets[0]} ${c.labels.component}`).sort();
    expect(targets).toEqual(COMPONENTS.map((c) => `${c}:${METRICS_PORT} ${c}`).sort());
    expect(scrapeConfig.rule_files).toEqual(['alerts.yml']);
  });

  test('compose runs Prometheus on this folder and Grafana on the provisioning and the dashboard', () => {
    expect(compose.services.prometheus.volumes).toContain('./infra/prometheus:/etc/prometheus:ro');
    expect(compose.services.prometheus.command).toContain('--config.file=/etc/prometheus/prometheus.yml');
    expect(compose.services.grafana.volumes).toEqual(
      expect.arrayContaining(['./infra/grafana/provisioning:/etc/grafana/provisioning:ro', './infra/grafana/dashboards:/var/lib/grafana/dashboards:ro']),
    );
    const provider = loadYaml(path.join(GRAFANA, 'provisioning', 'dashboards', 'crm.yml'))[0].providers[0];
    expect(provider.options.path).toBe('/var/lib/grafana/dashboards');
  });

  (kustomizeAvailable ? test : test.skip)('the PodMonitor selects every component pod of the base, on its metrics port, with job "crm"', () => {
    const [monitor] = loadYaml(path.join(ROOT, 'infra', 'k8s', 'monitoring', 'pod-monitor.yaml'));
    const selector = monitor.spec.selector.matchExpressions[0];
    const pods = podTemplates(rendered.base).filter(({ labels }) => selector.values.includes(labels['app.kubernetes.io/name']));
    expect(pods.map((p) => p.workload.metadata.name).sort()).toEqual([...COMPONENTS].sort());
    for (const { workload, spec, labels } of pods) {
      expect([workload.metadata.name, labels[monitor.spec.jobLabel]]).toEqual([workload.metadata.name, 'crm']);
      const port = spec.containers[0].ports.find((p: any) => p.name === monitor.spec.podMetricsEndpoints[0].port);
      expect([workload.metadata.name, port?.containerPort]).toEqual([workload.metadata.name, METRICS_PORT]);
    }
    expect(find(rendered.base, 'NetworkPolicy', 'allow-metrics-scrape').spec.podSelector.matchExpressions[0].values.sort()).toEqual([...selector.values].sort());
  });
});

// ------------------------------------------------------------------------------------------------
// promtool
// ------------------------------------------------------------------------------------------------

const promtoolAvailable: boolean = (() => {
  try {
    execFileSync('promtool', ['--version'], { stdio: 'ignore', timeout: 20_000 });
    return true;
  } catch {
    if (requireServices()) throw new Error('promtool (Debian package prometheus) is required (CRM_REQUIRE_SERVICES=1) to check the rules');
    // eslint-disable-next-line no-console
    console.warn('promtool is not installed: the alert rules and the dashboard queries are checked statically only');
    return false;
  }
})();

const promtool = (...args: string[]) => execFileSync('promtool', args, { cwd: PROMETHEUS, encoding: 'utf8', timeout: 60_000, stdio: 'pipe' });

(promtoolAvailable ? describe : describe.skip)('promtool', () => {
  test('check config: the scrape configuration and the rule file it loads', () => {
    expect(promtool('check', 'config', 'prometheus.yml')).toMatch(/SUCCESS/);
  });

  test('check rules, and the alerts\' unit tests pass', () => {
    expect(promtool('check', 'rules', 'alerts.yml')).toMatch(/SUCCESS: \d+ rules found/);
    expect(promtool('test', 'rules', 'alerts.test.yml')).toMatch(/SUCCESS/);
  });

  test('check metrics: a real /metrics passes Prometheus\' own lint, durations and sizes named with their units', () => {
    const text = scrapeFreshProcess();
    expect(text).toMatch(/^# TYPE http_server_request_duration_seconds histogram$/m);
    const lint = (input: string) => {
      try {
        return execFileSync('promtool', ['check', 'metrics'], { input, encoding: 'utf8', timeout: 60_000, stdio: 'pipe' }).trim();
      } catch (error) {
        const { stdout, stderr } = error as { stdout?: string; stderr?: string };
        return `${stdout ?? ''}${stderr ?? ''}`.trim() || String(error);
      }
    };
    // The one finding kept: `db.client.connection.count` is the semantic conventions' name for a
    // pool's connections by state (a gauge); renaming it would leave the convention for the lint.
    const kept = /^db_client_connection_count non-histogram and non-summary metrics should not have "_count" suffix$/;
    expect(lint(text).split('\n').filter((line) => line && !kept.test(line))).toEqual([]);
    // The lint has teeth: a duration in milliseconds, or a counter without _total, is reported.
    expect(lint('# HELP x_milliseconds x\n# TYPE x_milliseconds gauge\nx_milliseconds 1\n')).toMatch(/base unit/);
    expect(lint('# HELP y y\n# TYPE y counter\ny 1\n')).toMatch(/_total/);
  }, 60_000);

  test('every panel query is valid PromQL (as recording rules)', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'crm-promql-'));
    try {
      const file = path.join(dir, 'panels.yml');
      const records = panelExprs.map((expr, i) => ({ record: `crm:panel_${i}`, expr: expr.replace(/\$__rate_interval/g, '5m') }));
      fs.writeFileSync(file, JSON.stringify({ groups: [{ name: 'panels', rules: records }] }));
      expect(promtool('check', 'rules', file)).toMatch(new RegExp(`SUCCESS: ${records.length} rules found`));
      // The check has teeth: a broken query is refused.
      fs.writeFileSync(file, JSON.stringify({ groups: [{ name: 'panels', rules: [{ record: 'crm:broken', expr: 'sum by (x (rate(y[5m]))' }] }] }));
      expect(() => promtool('check', 'rules', file)).toThrow();
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
