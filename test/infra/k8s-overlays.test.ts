/**
 * Every Kubernetes overlay as `kubectl apply -k` would send it (rendered by kustomize, no cluster):
 * each object valid against the Kubernetes schemas, every pod admissible under the "restricted" Pod
 * Security Standard, the NetworkPolicies allowing exactly the flows of `expectedEdges` below, one image tag per
 * Deployment, and configuration that rolls the pods reading it when it changes.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import {
  COMPONENTS,
  INBOUND_SMTP_PORT,
  METRICS_PORT,
  OVERLAYS,
  type Overlay,
  PORTS,
  POSTGRES_SERVICES,
  SERVICES,
  allContainers,
  find,
  kustomizeAvailable,
  loadYaml,
  ofKind,
  podTemplates,
  renderEdited,
  rendered,
} from './deploy-facts';

/* eslint-disable @typescript-eslint/no-explicit-any, @typescript-eslint/no-require-imports */

const suite = kustomizeAvailable ? describe : describe.skip;

// ------------------------------------------------------------------------------------------------
// Schemas
// ------------------------------------------------------------------------------------------------

/** The kubernetes-models class of an object (its JSON schema), by apiVersion and kind. */
function modelOf(doc: any): (new (data: any) => { validate(): void }) | undefined {
  const group = doc.apiVersion.includes('/') ? doc.apiVersion : `v1`;
  try {
    return require(`kubernetes-models/${group}`)[doc.kind];
  } catch {
    return undefined;
  }
}

suite.each(OVERLAYS)('%s overlay: schemas', (overlay) => {
  test('every object is a known kind, valid against its Kubernetes schema', () => {
    const docs = rendered[overlay];
    expect(docs.length).toBeGreaterThan(20);
    const problems: string[] = [];
    for (const doc of docs) {
      const Model = modelOf(doc);
      if (!Model) {
        problems.push(`${doc.apiVersion} ${doc.kind}: no schema (unknown kind or API version)`);
        continue;
      }
      // kustomize wraps long base64 values over several lines; the API server's decoder (Go's
      // base64) skips the newlines, the schema's "byte" format does not.
      const object =
        doc.kind === 'Secret' && doc.data
          ? { ...doc, data: Object.fromEntries(Object.entries<string>(doc.data).map(([k, v]) => [k, v.replace(/\s/g, '')])) }
          : doc;
      try {
        new Model(object).validate();
      } catch (error) {
        problems.push(`${doc.kind}/${doc.metadata?.name}: ${(error as Error).message}`);
      }
    }
    expect(problems).toEqual([]);
  });

  test('the validator does refuse an invalid object', () => {
    const deployment = structuredClone(find(rendered[overlay], 'Deployment', 'people'));
    deployment.spec.template.spec.containers[0].ports[0].containerPort = 'fifty';
    expect(() => new (modelOf(deployment)!)(deployment).validate()).toThrow(/containerPort/);
  });
});

// ------------------------------------------------------------------------------------------------
// Pod Security Standard "restricted" (the namespace enforces it; checked here as the admission
// controller would, https://kubernetes.io/docs/concepts/security/pod-security-standards/)
// ------------------------------------------------------------------------------------------------

const ALLOWED_VOLUME_TYPES = ['configMap', 'csi', 'downwardAPI', 'emptyDir', 'ephemeral', 'persistentVolumeClaim', 'projected', 'secret'];

/** Every way a pod spec breaks the restricted profile (baseline included). */
function restrictedViolations(spec: any): string[] {
  const v: string[] = [];
  const podSc = spec.securityContext ?? {};
  if (spec.hostNetwork || spec.hostPID || spec.hostIPC) v.push('host namespaces');
  if (podSc.sysctls?.length) v.push('sysctls');
  if (podSc.seLinuxOptions?.type && !['container_t', 'container_init_t', 'container_kvm_t'].includes(podSc.seLinuxOptions.type)) v.push('pod seLinux type');
  for (const vol of spec.volumes ?? []) {
    const type = Object.keys(vol).find((k) => k !== 'name');
    if (!ALLOWED_VOLUME_TYPES.includes(type!)) v.push(`volume ${vol.name}: ${type}`);
  }
  for (const c of [...allContainers(spec), ...(spec.ephemeralContainers ?? [])]) {
    const sc = c.securityContext ?? {};
    const id = c.name;
    if (sc.privileged) v.push(`${id}: privileged`);
    if (sc.procMount && sc.procMount !== 'Default') v.push(`${id}: procMount`);
    if (sc.allowPrivilegeEscalation !== false) v.push(`${id}: allowPrivilegeEscalation must be false`);
    const runAsNonRoot = sc.runAsNonRoot ?? podSc.runAsNonRoot;
    if (runAsNonRoot !== true) v.push(`${id}: runAsNonRoot must be true`);
    if ((sc.runAsUser ?? podSc.runAsUser) === 0) v.push(`${id}: runAsUser 0`);
    const seccomp = sc.seccompProfile?.type ?? podSc.seccompProfile?.type;
    if (!['RuntimeDefault', 'Localhost'].includes(seccomp)) v.push(`${id}: seccompProfile must be RuntimeDefault or Localhost`);
    if (!(sc.capabilities?.drop ?? []).includes('ALL')) v.push(`${id}: capabilities must drop ALL`);
    for (const add of sc.capabilities?.add ?? []) if (add !== 'NET_BIND_SERVICE') v.push(`${id}: adds capability ${add}`);
    for (const p of c.ports ?? []) if (p.hostPort) v.push(`${id}: hostPort ${p.hostPort}`);
    if (sc.seLinuxOptions?.type && !['container_t', 'container_init_t', 'container_kvm_t'].includes(sc.seLinuxOptions.type)) v.push(`${id}: seLinux type`);
    const apparmor = sc.appArmorProfile?.type;
    if (apparmor && !['RuntimeDefault', 'Localhost'].includes(apparmor)) v.push(`${id}: appArmor ${apparmor}`);
  }
  return v;
}

suite.each(OVERLAYS)('%s overlay: Pod Security "restricted"', (overlay) => {
  test('every pod template is admissible', () => {
    const templates = podTemplates(rendered[overlay]);
    expect(templates.length).toBeGreaterThanOrEqual(COMPONENTS.length);
    for (const t of templates) expect([t.workload.metadata.name, restrictedViolations(t.spec)]).toEqual([t.workload.metadata.name, []]);
  });

  test('the checker does catch a violation', () => {
    const spec = structuredClone(podTemplates(rendered[overlay])[0]!.spec);
    spec.containers[0].securityContext.allowPrivilegeEscalation = true;
    spec.volumes = [...(spec.volumes ?? []), { name: 'host', hostPath: { path: '/' } }];
    expect(restrictedViolations(spec)).toEqual(expect.arrayContaining([expect.stringMatching(/allowPrivilegeEscalation/), 'volume host: hostPath']));
  });

  test('the namespace enforces it', () => {
    const ns = find(rendered[overlay], 'Namespace', 'crm');
    expect(ns.metadata.labels['pod-security.kubernetes.io/enforce']).toBe('restricted');
  });
});

// ------------------------------------------------------------------------------------------------
// NetworkPolicies: the graph they allow
// ------------------------------------------------------------------------------------------------

interface Endpoint {
  /** Node name in the expected edge list. */
  id: string;
  namespace?: string;
  labels?: Record<string, string>;
  /** Outside the cluster: matched by ipBlock only. */
  ip?: string;
  ports: { port: number; protocol: string; name?: string }[];
  /** A pod of this namespace, subject to its policies. */
  inCrm: boolean;
}

const NAMESPACE_LABELS: Record<string, Record<string, string>> = {
  crm: { 'kubernetes.io/metadata.name': 'crm' },
  'kube-system': { 'kubernetes.io/metadata.name': 'kube-system' },
  'ingress-nginx': { 'kubernetes.io/metadata.name': 'ingress-nginx' },
  monitoring: { 'kubernetes.io/metadata.name': 'monitoring' },
};

function matchesSelector(selector: any, labels: Record<string, string>): boolean {
  if (!selector) return true;
  for (const [k, v] of Object.entries(selector.matchLabels ?? {})) if (labels[k] !== v) return false;
  for (const e of selector.matchExpressions ?? []) {
    const has = e.key in labels;
    if (e.operator === 'In' && !(has && e.values.includes(labels[e.key]))) return false;
    if (e.operator === 'NotIn' && has && e.values.includes(labels[e.key])) return false;
    if (e.operator === 'Exists' && !has) return false;
    if (e.operator === 'DoesNotExist' && has) return false;
  }
  return true;
}

/** An IPv4 or IPv6 address as a number and its width in bits (`::` and a trailing dotted quad read). */
function parseIp(ip: string): { value: bigint; bits: number } {
  const v4 = (a: string) => {
    const octets = a.split('.').map(Number);
    if (octets.length !== 4 || octets.some((o) => !Number.isInteger(o) || o < 0 || o > 255)) throw new Error(`bad IPv4 address ${a}`);
    return octets.reduce((n, o) => n * 256n + BigInt(o), 0n);
  };
  if (!ip.includes(':')) return { value: v4(ip), bits: 32 };
  // ::ffff:10.0.0.1 -> ::ffff:a00:1
  const text = ip.replace(/(\d+\.\d+\.\d+\.\d+)$/, (q) => {
    const n = v4(q);
    return `${(n >> 16n).toString(16)}:${(n & 0xffffn).toString(16)}`;
  });
  const groups = (part: string) => (part ? part.split(':').map((g) => BigInt(`0x${g}`)) : []);
  const halves = text.split('::');
  if (halves.length > 2) throw new Error(`bad IPv6 address ${ip}`);
  const head = groups(halves[0]!);
  const tail = halves.length === 2 ? groups(halves[1]!) : [];
  const words = halves.length === 2 ? [...head, ...Array<bigint>(8 - head.length - tail.length).fill(0n), ...tail] : head;
  if (words.length !== 8 || words.some((w) => w > 0xffffn)) throw new Error(`bad IPv6 address ${ip}`);
  return { value: words.reduce((n, w) => (n << 16n) | w, 0n), bits: 128 };
}

function ipInCidr(ip: string, cidr: string): boolean {
  const [base, prefix] = cidr.split('/');
  const a = parseIp(ip);
  const b = parseIp(base!);
  if (a.bits !== b.bits) return false; // an ipBlock of one family never matches the other
  const shift = BigInt(a.bits - Number(prefix));
  return a.value >> shift === b.value >> shift;
}

/** Whether a NetworkPolicyPeer (in a policy of namespace crm) designates this endpoint. */
function peerMatches(peer: any, e: Endpoint): boolean {
  if (peer.ipBlock) {
    return Boolean(e.ip) && ipInCidr(e.ip!, peer.ipBlock.cidr) && !(peer.ipBlock.except ?? []).some((x: string) => ipInCidr(e.ip!, x));
  }
  if (!e.namespace) return false;
  if (peer.namespaceSelector) {
    if (!matchesSelector(peer.namespaceSelector, NAMESPACE_LABELS[e.namespace] ?? {})) return false;
  } else if (e.namespace !== 'crm') {
    return false;
  }
  return matchesSelector(peer.podSelector, e.labels ?? {});
}

function portMatches(rulePorts: any[] | undefined, dest: Endpoint, port: Endpoint['ports'][number]): boolean {
  if (!rulePorts || rulePorts.length === 0) return true;
  return rulePorts.some((p) => {
    if ((p.protocol ?? 'TCP') !== port.protocol) return false;
    if (p.port === undefined) return true;
    if (typeof p.port === 'string') return port.name === p.port;
    return p.endPort ? port.port >= p.port && port.port <= p.endPort : port.port === p.port;
  });
}

/** Every `source -> destination:port/protocol` the policies allow (a connection needs both ends' consent). */
function allowedEdges(policies: any[], endpoints: Endpoint[]): string[] {
  const selecting = (e: Endpoint, type: 'Ingress' | 'Egress') =>
    e.inCrm ? policies.filter((p) => matchesSelector(p.spec.podSelector, e.labels ?? {}) && (p.spec.policyTypes ?? ['Ingress']).includes(type)) : [];
  const edges: string[] = [];
  for (const src of endpoints) {
    for (const dst of endpoints) {
      // Between two ends outside the namespace, these policies have nothing to say. A workload is
      // paired with itself too: its pods may talk to each other (the NATS nodes' routes).
      if (!src.inCrm && !dst.inCrm) continue;
      for (const port of dst.ports) {
        const egress = selecting(src, 'Egress');
        const out =
          !src.inCrm || egress.length === 0 || egress.some((p) => (p.spec.egress ?? []).some((r: any) => (!r.to || r.to.some((peer: any) => peerMatches(peer, dst))) && portMatches(r.ports, dst, port)));
        const ingress = selecting(dst, 'Ingress');
        const inn =
          !dst.inCrm || ingress.length === 0 || ingress.some((p) => (p.spec.ingress ?? []).some((r: any) => (!r.from || r.from.some((peer: any) => peerMatches(peer, src))) && portMatches(r.ports, dst, port)));
        if (out && inn) edges.push(`${src.id} -> ${dst.id}:${port.port}/${port.protocol}`);
      }
    }
  }
  return edges.sort();
}

/** The flows the architecture allows (README.md, Architecture; the header of network-policies.yaml), and nothing else. */
function expectedEdges(workloadIds: string[]): string[] {
  const tcp = (from: string, to: string, port: number) => `${from} -> ${to}:${port}/TCP`;
  const calls: [string, string][] = [
    ['gateway', 'directory'],
    ['gateway', 'people'],
    ['gateway', 'flows'],
    ['gateway', 'messaging'],
    ['gateway', 'activities'],
    ['gateway', 'webhooks'],
    ['flows', 'directory'],
    ['flows', 'people'],
    ['flows', 'messaging'],
    ['flows', 'activities'],
    ['messaging', 'directory'],
    ['messaging', 'people'],
    // References checked on write (gateway/README.md, "References").
    ['people', 'directory'],
    ['activities', 'directory'],
    ['activities', 'people'],
    // The records webhook deliveries carry, read from their owning contexts (services/webhooks/README.md).
    ...WEBHOOKS_PEERS.map((to): [string, string] => ['webhooks', to]),
  ];
  const edges = [
    tcp('ingress-controller', 'gateway', PORTS.gateway!),
    ...calls.map(([from, to]) => tcp(from, to, PORTS[to]!)),
    ...POSTGRES_SERVICES.map((s) => tcp(s, 'postgres', 5432)),
    tcp('directory', 'mongo', 27017),
    ...SERVICES.map((s) => tcp(s, 'nats', 4222)),
    // The dev overlay's NATS is a 3-node cluster: each node routes to the others.
    ...(workloadIds.includes('nats') ? [tcp('nats', 'nats', 6222)] : []),
    tcp('gateway', 'redis', 6379),
    tcp('messaging', 'redis', 6379),
    ...COMPONENTS.map((c) => tcp(c, 'otel-collector', 4318)),
    ...COMPONENTS.map((c) => tcp('prometheus', c, METRICS_PORT)),
    ...[25, 465, 587].map((port) => tcp('messaging', 'internet', port)),
    tcp('internet', 'messaging', INBOUND_SMTP_PORT),
    // Webhook deliveries: https to public addresses only (see the webhooks egress tests below).
    tcp('webhooks', 'internet', 443),
    ...workloadIds.flatMap((w) => [`${w} -> kube-dns:53/TCP`, `${w} -> kube-dns:53/UDP`]),
  ];
  return edges.sort();
}

const BACKING = ['postgres', 'mongo', 'redis', 'nats'];
/** The contexts webhooks reads records from over gRPC (PEOPLE_ADDR, FLOWS_ADDR, MESSAGING_ADDR, ACTIVITIES_ADDR). */
const WEBHOOKS_PEERS = ['people', 'flows', 'messaging', 'activities'];

function endpointsOf(docs: any[]): Endpoint[] {
  const pods: Endpoint[] = podTemplates(docs).map(({ workload, spec, labels }) => ({
    id: workload.metadata.name,
    namespace: 'crm',
    labels,
    ports: allContainers(spec).flatMap((c: any) => (c.ports ?? []).map((p: any) => ({ port: p.containerPort, protocol: p.protocol ?? 'TCP', name: p.name }))),
    inCrm: true,
  }));
  // Backing services the base expects elsewhere: their clients' side of the policy is what counts.
  for (const [name, port] of [['postgres', 5432], ['mongo', 27017], ['redis', 6379], ['nats', 4222]] as const) {
    if (!pods.some((p) => p.id === name)) {
      pods.push({ id: name, namespace: 'crm', labels: { 'app.kubernetes.io/name': name }, ports: [{ port, protocol: 'TCP' }], inCrm: false });
    }
  }
  return [
    ...pods,
    { id: 'ingress-controller', namespace: 'ingress-nginx', labels: { 'app.kubernetes.io/name': 'ingress-nginx' }, ports: [{ port: 443, protocol: 'TCP' }], inCrm: false },
    // Prometheus, in its own namespace: it may scrape /metrics and nothing else.
    { id: 'prometheus', namespace: 'monitoring', labels: { 'app.kubernetes.io/name': 'prometheus' }, ports: [{ port: 9090, protocol: 'TCP' }], inCrm: false },
    { id: 'kube-dns', namespace: 'kube-system', labels: { 'k8s-app': 'kube-dns' }, ports: [{ port: 53, protocol: 'UDP' }, { port: 53, protocol: 'TCP' }], inCrm: false },
    // Anywhere outside the cluster: SMTP servers, mail senders, and what must stay unreachable.
    {
      id: 'internet',
      ip: '203.0.113.25',
      ports: [25, 80, 443, 465, 587, 5432, 6379].map((port) => ({ port, protocol: 'TCP' })),
      inCrm: false,
    },
    // Another pod of the cluster that is none of ours.
    { id: 'other-namespace', namespace: 'default', labels: { 'app.kubernetes.io/name': 'gateway' }, ports: [{ port: 8080, protocol: 'TCP' }], inCrm: false },
  ];
}

suite.each(OVERLAYS)('%s overlay: NetworkPolicies', (overlay) => {
  const docs = () => rendered[overlay];

  test('deny everything by default, in both directions', () => {
    const deny = ofKind(docs(), 'NetworkPolicy').find((p) => Object.keys(p.spec.podSelector).length === 0 && !p.spec.ingress && !p.spec.egress);
    expect(deny?.spec.policyTypes.sort()).toEqual(['Egress', 'Ingress']);
  });

  test('allow exactly the edges of the architecture', () => {
    const endpoints = endpointsOf(docs());
    const workloads = endpoints.filter((e) => e.inCrm).map((e) => e.id);
    expect(workloads).toEqual(expect.arrayContaining([...COMPONENTS, 'otel-collector', ...(overlay === 'dev' ? BACKING : [])]));
    const allowed = allowedEdges(ofKind(docs(), 'NetworkPolicy'), endpoints).filter(
      // the base runs no backing service: what reaches one is the dev overlay's to allow
      (e) => overlay === 'dev' || !BACKING.some((b) => e.startsWith(`${b} -> `)),
    );
    const expected = expectedEdges(workloads.filter((w) => overlay === 'dev' || !BACKING.includes(w)));
    expect({ missing: expected.filter((e) => !allowed.includes(e)), unexpected: allowed.filter((e) => !expected.includes(e)) }).toEqual({
      missing: [],
      unexpected: [],
    });
  });

  test('the graph check notices a policy that allows too much', () => {
    const policies = structuredClone(ofKind(docs(), 'NetworkPolicy'));
    policies.find((p: any) => p.metadata.name === 'activities').spec.ingress[0].from.push({ podSelector: { matchLabels: { 'app.kubernetes.io/name': 'messaging' } } });
    const allowed = allowedEdges(policies, endpointsOf(docs()));
    expect(allowed).not.toContain(`messaging -> activities:${PORTS.activities}/TCP`); // messaging's own egress still says no
    policies.push({ spec: { podSelector: { matchLabels: { 'app.kubernetes.io/name': 'messaging' } }, policyTypes: ['Egress'], egress: [{}] } });
    expect(allowedEdges(policies, endpointsOf(docs()))).toContain(`messaging -> activities:${PORTS.activities}/TCP`);
  });
});

// ------------------------------------------------------------------------------------------------
// Webhooks' egress: its four peers on their gRPC ports, the Internet on 443, never another part of
// the cluster or a private range
// ------------------------------------------------------------------------------------------------

/** Public addresses a receiver may have, IPv4 and IPv6. */
const PUBLIC_ADDRESSES = ['203.0.113.25', '1.1.1.1', '8.8.8.8', '100.63.255.1', '100.128.0.1', '172.15.0.1', '172.32.0.1', '192.167.1.1', '2606:4700:4700::1111', '2001:4860:4860::8888'];
/** What a delivery must never reach: the cluster (pods, Services, nodes) and every private, shared, loopback, link-local or metadata range. */
const REFUSED_ADDRESSES: Record<string, string[]> = {
  'private 10.0.0.0/8 (pods, Services)': ['10.0.0.1', '10.96.0.1', '10.244.3.7', '10.255.255.255'],
  'private 172.16.0.0/12': ['172.16.0.1', '172.20.4.5', '172.31.255.254'],
  'private 192.168.0.0/16': ['192.168.0.1', '192.168.49.2'],
  'shared 100.64.0.0/10 (carrier-grade NAT, some clusters\' pods)': ['100.64.0.1', '100.127.255.254'],
  'link-local 169.254.0.0/16 (cloud metadata)': ['169.254.169.254', '169.254.0.1'],
  'loopback 127.0.0.0/8': ['127.0.0.1', '127.1.2.3'],
  'this network 0.0.0.0/8': ['0.0.0.0'],
  'IPv6 unique local fc00::/7 (AWS metadata fd00:ec2::254)': ['fd00:ec2::254', 'fc00::1', 'fdff:ffff::1'],
  'IPv6 link-local fe80::/10': ['fe80::1', 'febf::1'],
  'IPv6 loopback': ['::1'],
};

/** A destination outside the namespace at `ip` (a pod or node of the cluster when `namespace` is set). */
const destination = (id: string, ip: string, ports: number[], namespace?: string): Endpoint => ({
  id,
  ip,
  namespace,
  labels: namespace ? { 'app.kubernetes.io/name': 'receiver' } : undefined,
  ports: ports.map((port) => ({ port, protocol: 'TCP' })),
  inCrm: false,
});

suite.each(OVERLAYS)('%s overlay: webhooks egress', (overlay) => {
  const policies = () => ofKind(rendered[overlay], 'NetworkPolicy');
  const webhooks = () => endpointsOf(rendered[overlay]).find((e) => e.id === 'webhooks')!;
  /** The ports webhooks may open to each destination. */
  const reach = (policySet: any[], destinations: Endpoint[]) => {
    const edges = allowedEdges(policySet, [webhooks(), ...destinations]).filter((e) => e.startsWith('webhooks -> '));
    return Object.fromEntries(destinations.map((d) => [d.id, edges.filter((e) => e.startsWith(`webhooks -> ${d.id}:`)).map((e) => Number(/:(\d+)\//.exec(e)![1])).sort((a, b) => a - b)]));
  };

  test('the address parser reads both families, :: and mapped forms', () => {
    expect(ipInCidr('10.1.2.3', '10.0.0.0/8')).toBe(true);
    expect(ipInCidr('11.1.2.3', '10.0.0.0/8')).toBe(false);
    expect(ipInCidr('fd00:ec2::254', 'fc00::/7')).toBe(true);
    expect(ipInCidr('fe00::1', 'fc00::/7')).toBe(false);
    expect(ipInCidr('::ffff:10.0.0.1', '::ffff:0:0/96')).toBe(true);
    expect(ipInCidr('::ffff:10.0.0.1', '10.0.0.0/8')).toBe(false); // another family: an IPv6 block judges it
    expect(ipInCidr('2606:4700:4700::1111', '::/0')).toBe(true);
    expect(ipInCidr('1.1.1.1', '::/0')).toBe(false);
  });

  test('admits https (443) to public addresses, IPv4 and IPv6, and no other port', () => {
    const targets = PUBLIC_ADDRESSES.map((ip) => destination(`public ${ip}`, ip, [22, 25, 80, 443, 5432, 8443]));
    const allowed = reach(policies(), targets);
    for (const t of targets) expect([t.id, allowed[t.id]]).toEqual([t.id, [443]]);
  });

  test('refuses the private, shared, loopback and link-local ranges and the cluster, on every port', () => {
    const targets = Object.entries(REFUSED_ADDRESSES).flatMap(([range, ips]) => ips.map((ip) => destination(`${range} ${ip}`, ip, [80, 443, 4222, 5432, 8080, 50051])));
    // pods and nodes of the cluster, in another namespace, reached by their addresses
    targets.push(destination('a pod of another namespace', '10.244.1.9', [443, 8080], 'default'));
    targets.push(destination('the API server (kubernetes.default)', '10.96.0.1', [443, 6443], 'default'));
    targets.push(destination('a node (kubelet)', '192.168.49.2', [443, 10250]));
    const allowed = reach(policies(), targets);
    for (const t of targets) expect([t.id, allowed[t.id]]).toEqual([t.id, []]);
    // nor any of its own namespace's workloads but what the graph allows (its peers, Postgres, NATS, the collector, DNS)
    const graph = allowedEdges(policies(), endpointsOf(rendered[overlay])).filter((e) => e.startsWith('webhooks -> '));
    expect(graph.map((e) => e.replace(/^webhooks -> /, '').replace(/:.*$/, '')).sort()).toEqual(
      [...WEBHOOKS_PEERS, 'internet', 'kube-dns', 'kube-dns', 'nats', 'otel-collector', 'postgres'].sort(),
    );
  });

  test('reaches exactly people, flows, messaging and activities on their gRPC ports, its stores, DNS, the collector and the Internet on 443', () => {
    const graph = allowedEdges(policies(), endpointsOf(rendered[overlay])).filter((e) => e.startsWith('webhooks -> '));
    expect(graph).toEqual(
      [
        ...WEBHOOKS_PEERS.map((p) => `webhooks -> ${p}:${PORTS[p]}/TCP`),
        'webhooks -> postgres:5432/TCP',
        'webhooks -> nats:4222/TCP',
        'webhooks -> otel-collector:4318/TCP',
        'webhooks -> kube-dns:53/TCP',
        'webhooks -> kube-dns:53/UDP',
        'webhooks -> internet:443/TCP',
      ].sort(),
    );
    // never the directory, the gateway, or a backing service it does not use
    for (const other of ['directory', 'gateway', 'mongo', 'redis']) expect(graph.filter((e) => e.startsWith(`webhooks -> ${other}:`))).toEqual([]);
  });

  test('a peer call needs both ends: without the peer\'s ingress from webhooks, or webhooks\' egress to it, the edge is gone', () => {
    const edge = `webhooks -> people:${PORTS.people}/TCP`;
    const endpoints = endpointsOf(rendered[overlay]);
    expect(allowedEdges(policies(), endpoints)).toContain(edge);
    const noIngress = structuredClone(policies());
    for (const rule of noIngress.find((p: any) => p.metadata.name === 'people').spec.ingress) {
      rule.from = rule.from?.filter((peer: any) => peer.podSelector?.matchLabels?.['app.kubernetes.io/name'] !== 'webhooks');
    }
    expect(allowedEdges(noIngress, endpoints)).not.toContain(edge);
    const noEgress = structuredClone(policies());
    const own = noEgress.find((p: any) => p.metadata.name === 'webhooks');
    own.spec.egress = own.spec.egress.filter((r: any) => !r.to?.some((peer: any) => peer.podSelector?.matchLabels?.['app.kubernetes.io/name'] === 'people'));
    expect(allowedEdges(noEgress, endpoints)).not.toContain(edge);
  });

  test('the check has teeth: a policy without the `except` lists, or on port 80, is caught', () => {
    const open = structuredClone(policies());
    for (const block of open.find((p: any) => p.metadata.name === 'webhooks').spec.egress.flatMap((r: any) => r.to ?? [])) delete block.ipBlock?.except;
    const leaked = reach(open, [destination('metadata', '169.254.169.254', [80]), destination('pod', '10.244.1.9', [443]), destination('ula', 'fd00:ec2::254', [443])]);
    expect(leaked).toEqual({ metadata: [], pod: [443], ula: [443] });
    const http = structuredClone(policies());
    http.find((p: any) => p.metadata.name === 'webhooks').spec.egress.find((r: any) => r.to?.some((t: any) => t.ipBlock)).ports.push({ port: 80, protocol: 'TCP' });
    expect(reach(http, [destination('public', '1.1.1.1', [80, 443])]).public).toEqual([80, 443]);
  });

  test('is reached by the gateway only, on its gRPC port, besides the metrics scrape', () => {
    const graph = allowedEdges(policies(), endpointsOf(rendered[overlay])).filter((e) => / -> webhooks:/.test(e));
    expect(graph).toEqual([`gateway -> webhooks:${PORTS.webhooks}/TCP`, `prometheus -> webhooks:${METRICS_PORT}/TCP`]);
  });
});

// ------------------------------------------------------------------------------------------------
// Deploying one service on its own
// ------------------------------------------------------------------------------------------------

const deployments = (docs: any[]) => Object.fromEntries(ofKind(docs, 'Deployment').map((d) => [d.metadata.name, d]));
const changed = (before: any[], after: any[]) => {
  const [a, b] = [deployments(before), deployments(after)];
  return Object.keys(b).filter((name) => JSON.stringify(a[name]) !== JSON.stringify(b[name])).sort();
};
function editKustomization(copy: string, overlay: Overlay, fn: (k: any) => void) {
  const file = path.join(copy, overlay, 'kustomization.yaml');
  const Y = require('yaml');
  const k = Y.parse(fs.readFileSync(file, 'utf8'));
  fn(k);
  fs.writeFileSync(file, Y.stringify(k));
}

suite.each(OVERLAYS)('%s overlay: one service at a time', (overlay) => {
  test('each component runs its own image, with its own pinned tag', () => {
    const images = loadYaml(path.join(__dirname, '..', '..', 'infra', 'k8s', overlay, 'kustomization.yaml'))[0].images;
    expect(images.map((i: any) => i.name).sort()).toEqual(COMPONENTS.map((c) => `crm-${c}`).sort());
    for (const i of images) expect([i.name, i.newTag ?? i.digest]).toEqual([i.name, expect.stringMatching(overlay === 'base' ? /^\d+\.\d+\.\d+$/ : /^\S+$/)]);
    for (const c of COMPONENTS) {
      const d = find(rendered[overlay], 'Deployment', c);
      for (const container of allContainers(d.spec.template.spec)) expect([c, container.image]).toEqual([c, `crm-${c}:${images.find((i: any) => i.name === `crm-${c}`).newTag}`]);
    }
    // every image anywhere is pinned: a tag that is not `latest`, or a digest
    for (const { workload, spec } of podTemplates(rendered[overlay])) {
      for (const container of allContainers(spec)) expect([workload.metadata.name, container.image]).toEqual([workload.metadata.name, expect.stringMatching(/^[^:@]+(:(?!latest$)[\w.-]+|@sha256:[0-9a-f]{64})$/)]);
    }
  });

  test.each(SERVICES.filter((s) => ['people', 'activities', 'webhooks'].includes(s)))('a new image tag for %s changes its Deployment and no other', (service) => {
    const after = renderEdited(overlay, (copy) =>
      editKustomization(copy, overlay, (k) => {
        k.images.find((i: any) => i.name === `crm-${service}`).newTag = '9.9.9-hotfix';
      }),
    );
    expect(changed(rendered[overlay], after)).toEqual([service]);
    const d = find(after, 'Deployment', service);
    for (const c of allContainers(d.spec.template.spec)) expect(c.image).toBe(`crm-${service}:9.9.9-hotfix`);
  });

  test('a changed setting rolls the pods that read it, and only those', () => {
    const after = renderEdited(overlay, (copy) => {
      const file = path.join(copy, 'base', 'config.env');
      fs.writeFileSync(file, fs.readFileSync(file, 'utf8').replace('ACTIVITIES_ADDR=activities:50055', 'ACTIVITIES_ADDR=activities.crm.svc:50055'));
    });
    // the ConfigMap's name carries its content's hash, so each pod template that names it changes
    expect(changed(rendered[overlay], after)).toEqual(['directory', 'flows', 'gateway', 'messaging', 'people', 'activities', 'webhooks'].filter((c) => COMPONENTS.includes(c)).sort());
    const collector = renderEdited(overlay, (copy) => {
      const file = path.join(copy, 'base', 'otel-collector.config.yaml');
      fs.writeFileSync(file, `${fs.readFileSync(file, 'utf8')}\n# changed\n`);
    });
    expect(changed(rendered[overlay], collector)).toEqual(['otel-collector']);
    if (overlay === 'dev') {
      const secret = renderEdited(overlay, (copy) =>
        editKustomization(copy, overlay, (k) => {
          const gen = k.secretGenerator.find((g: any) => g.name === 'crm-people');
          gen.literals = gen.literals.map((l: string) => (l.startsWith('CURSOR_SECRET=') ? 'CURSOR_SECRET=dev-only-rotated' : l));
        }),
      );
      expect(changed(rendered[overlay], secret)).toEqual(['people']);
    }
  });
});
