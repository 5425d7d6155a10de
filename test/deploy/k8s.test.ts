/**
 * The Kubernetes manifests (deploy/k8s) as `kubectl kustomize` renders every overlay, checked
 * against the Kubernetes schemas (kubernetes-models) and against the code they deploy:
 *  - every variable a process reads (its main.ts EnvReader calls, the runtime's process.env reads,
 *    the challenge service's delivery and rate-limit variables) is provided and nothing else is
 *    set, with values the processes' own checks accept;
 *  - Service ports are the processes' default ports; Service, PDB and HPA selectors match the pods;
 *  - every container has probes, resources and the locked-down security context; the preStop pause
 *    and grace period fit the graceful shutdown of services/runtime/lifecycle.ts;
 *  - the NetworkPolicies allow exactly the call graph the processes' *_URL settings imply, MongoDB
 *    only from the four services, mail and SMS only from the challenge service, webhooks only from
 *    the events service;
 *  - the production Ingress exposes only the public paths over TLS; ServiceMonitors scrape /metrics.
 */
import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createContext, runInContext } from 'node:vm';
import { describe, expect, it } from 'vitest';
import { parseAllDocuments } from 'yaml';
import { DELIVERY_ENV_VARS, readDeliveryEnv } from '../../services/challenge/src/delivery/createDeliveryFromEnv.js';
import { checkBaseUrl, frontendApiUrlFor } from '../../services/connect/src/projects/domain/projectRules.js';
import { EnvReader } from '../../services/runtime/config.js';
import { parseMasterKey } from '../../services/runtime/masterKey.js';
import { parseInternalAuthKeys } from '../../services/runtime/internalAuth.js';
import { calleesOf } from '../../services/runtime/internalCallPolicy.js';

const REPO = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const K8S = join(REPO, 'deploy', 'k8s');
const OVERLAYS = ['dev', 'production', 'production-monitoring'] as const;
type Overlay = (typeof OVERLAYS)[number];
const PROCESSES = ['gateway', 'ceremony', 'challenge', 'connect', 'events'] as const;
type Process = (typeof PROCESSES)[number];
const SERVICES: readonly Process[] = ['ceremony', 'challenge', 'connect', 'events'];
const SECRET_NAME = 'passkeyauth-secrets';
const PASSKEYAUTH_UID = 10001;

// ───────────────────────────── what the code reads ─────────────────────────────

interface EnvRead {
  name: string;
  kind: 'string' | 'port' | 'url' | 'int' | 'optional' | 'raw';
  /** No fallback: the process refuses to start without it. */
  required: boolean;
  /** A literal numeric fallback (ports, ints). */
  fallback?: number;
  min?: number;
  max?: number;
}

const read = (path: string) => readFileSync(join(REPO, path), 'utf8');
const num = (literal: string) => (/^[0-9_]+$/.test(literal.trim()) ? Number(literal.trim().replace(/_/g, '')) : undefined);
const mainOf = (p: Process) => (p === 'gateway' ? 'gateway/src/main.ts' : `services/${p}/src/main.ts`);

/** Every EnvReader call of a main.ts, with the RATE_LIMIT_${name} template expanded over its limit('NAME', …) calls. */
function envReadsOfMain(p: Process): EnvRead[] {
  const source = read(mainOf(p));
  const limitNames = [...source.matchAll(/\blimit\(\s*'([A-Z][A-Z0-9_]*)'/g)].map((m) => m[1]);
  const reads: EnvRead[] = [];
  const calls = [...source.matchAll(/\benv\.(string|port|url|int|optional)\(([^)]*)\)/g)];
  for (const [, kind, argText] of calls) {
    const args = argText.split(',').map((a) => a.trim());
    const first = args[0];
    let names: string[];
    const literal = /^'([A-Z][A-Z0-9_]*)'$/.exec(first);
    const template = /^`([A-Z0-9_]*)\$\{name\}([A-Z0-9_]*)`$/.exec(first);
    if (literal) names = [literal[1]];
    else if (template) {
      // The template belongs to the limit(name, …) helper; without limit calls it would read nothing we can name.
      expect(limitNames.length, `${mainOf(p)}: ${first} but no limit('…') calls`).toBeGreaterThan(0);
      names = limitNames.map((n) => `${template[1]}${n}${template[2]}`);
    } else throw new Error(`${mainOf(p)}: env.${kind}(${argText}) names its variable in a way this test cannot read; use a string literal`);
    const required = (kind === 'string' || kind === 'url') && args.length === 1;
    for (const name of names) {
      reads.push({ name, kind: kind as EnvRead['kind'], required, fallback: num(args[1] ?? ''), min: num(args[2] ?? ''), max: num(args[3] ?? '') });
    }
  }
  expect(reads.length, `${mainOf(p)} reads no variables through EnvReader`).toBeGreaterThan(3);
  return reads;
}

/** process.env reads of the shared runtime (e.g. LOG_LEVEL in logger.ts): every process reads them. */
function runtimeEnvReads(): EnvRead[] {
  const dir = 'services/runtime';
  const names = new Set<string>();
  for (const file of readdirSync(join(REPO, dir)).filter((f) => f.endsWith('.ts'))) {
    for (const m of read(`${dir}/${file}`).matchAll(/process\.env(?:\.([A-Z][A-Z0-9_]*)|\[\s*'([A-Z][A-Z0-9_]*)'\s*\])/g)) names.add(m[1] ?? m[2]);
  }
  return [...names].map((name) => ({ name, kind: 'raw', required: false }));
}

/** Read by node itself: the heap limit that fits the container (checked against its memory limit below). */
const NODE_RUNTIME_READS: EnvRead[] = [{ name: 'NODE_OPTIONS', kind: 'raw', required: false }];

/** Every variable a process reads, by name. */
function envReadsOf(p: Process): Map<string, EnvRead> {
  const reads = [...envReadsOfMain(p), ...runtimeEnvReads(), ...NODE_RUNTIME_READS];
  if (p === 'challenge') {
    expect(read(mainOf(p))).toContain('createDeliveryFromEnv(process.env)');
    for (const v of DELIVERY_ENV_VARS) reads.push({ name: v.name, kind: 'raw', required: false });
  }
  return new Map(reads.map((r) => [r.name, r]));
}

const READS = Object.fromEntries(PROCESSES.map((p) => [p, envReadsOf(p)])) as Record<Process, Map<string, EnvRead>>;

/** The port variables of a process and their defaults (PORT, or FRONTEND_PORT/BACKEND_PORT). */
const defaultPorts = (p: Process) => [...READS[p].values()].filter((r) => r.kind === 'port').map((r) => ({ name: r.name, port: r.fallback as number }));

/** Processes a process calls: the services whose <NAME>_URL it reads. */
const callees = (p: Process) => SERVICES.filter((s) => READS[p].has(`${s.toUpperCase()}_URL`));

/** The graceful shutdown: how long a closing listener keeps running requests (lifecycle.ts). */
const LISTENER_GRACE_MS = (() => {
  const m = /closeAllConnections\(\);[\s\S]*?\},\s*([0-9_]+)\)/.exec(read('services/runtime/lifecycle.ts'));
  if (!m) throw new Error('services/runtime/lifecycle.ts: cannot find the listener grace period');
  return num(m[1]) as number;
})();

/** The node binary of the image (first element of the Dockerfile's ENTRYPOINT). */
const IMAGE_NODE = (() => {
  const m = /^ENTRYPOINT\s+(\[.*\])\s*$/m.exec(read('Dockerfile'));
  if (!m) throw new Error('Dockerfile: no exec-form ENTRYPOINT');
  return (JSON.parse(m[1]) as string[])[0];
})();

// ───────────────────────────── rendering ─────────────────────────────

type Obj = any;

/** The overlays use kustomize v5 (components, labels, inline patches): kubectl 1.27 or newer. */
const KUSTOMIZE_MAJOR = (() => {
  const version = execFileSync('kubectl', ['version', '--client'], { encoding: 'utf8' });
  const major = Number(/Kustomize Version:\s*v(\d+)/.exec(version)?.[1] ?? 0);
  if (major < 5) {
    throw new Error(`kubectl ${version.trim().split('\n')[0]} embeds kustomize ${major ? `v${major}` : 'older than v4'}; deploy/k8s needs kustomize v5 (kubectl ≥ 1.27)`);
  }
  return major;
})();

function render(overlay: Overlay): Obj[] {
  const out = execFileSync('kubectl', ['kustomize', join(K8S, 'overlays', overlay)], { encoding: 'utf8', maxBuffer: 32 * 1024 * 1024 });
  return parseAllDocuments(out)
    .map((doc) => {
      if (doc.errors.length) throw new Error(`${overlay}: ${doc.errors.map((e) => e.message).join('; ')}`);
      return doc.toJS() as Obj;
    })
    .filter((o) => o !== null);
}

/** kubernetes-models classes of the kinds the manifests may use; anything else fails the test. */
const MODELS: Record<string, string> = {
  'v1/Namespace': 'kubernetes-models/v1/Namespace',
  'v1/ConfigMap': 'kubernetes-models/v1/ConfigMap',
  'v1/Secret': 'kubernetes-models/v1/Secret',
  'v1/Service': 'kubernetes-models/v1/Service',
  'v1/ServiceAccount': 'kubernetes-models/v1/ServiceAccount',
  'apps/v1/Deployment': 'kubernetes-models/apps/v1/Deployment',
  'apps/v1/StatefulSet': 'kubernetes-models/apps/v1/StatefulSet',
  'batch/v1/Job': 'kubernetes-models/batch/v1/Job',
  'policy/v1/PodDisruptionBudget': 'kubernetes-models/policy/v1/PodDisruptionBudget',
  'autoscaling/v2/HorizontalPodAutoscaler': 'kubernetes-models/autoscaling/v2/HorizontalPodAutoscaler',
  'networking.k8s.io/v1/NetworkPolicy': 'kubernetes-models/networking.k8s.io/v1/NetworkPolicy',
  'networking.k8s.io/v1/Ingress': 'kubernetes-models/networking.k8s.io/v1/Ingress',
};

const WORKLOADS = new Set(['Deployment', 'StatefulSet', 'Job']);
const isPasskeyauth = (c: Obj) => /(^|\/)passkeyauth(:[^/]+)?$/.test(String(c.image));
const processOf = (c: Obj): Process => {
  const p = c.args?.[0];
  if (!PROCESSES.includes(p)) throw new Error(`container ${c.name}: args ${JSON.stringify(c.args)} name no process`);
  return p;
};

interface Rendered {
  objects: Obj[];
  of(kind: string): Obj[];
  one(kind: string, name: string): Obj;
  deployments: Map<Process, Obj>;
  configMaps: Map<string, Record<string, string>>;
  secrets: Map<string, Record<string, string>>;
}

function load(overlay: Overlay): Rendered {
  const objects = render(overlay);
  const of = (kind: string) => objects.filter((o) => o.kind === kind);
  const one = (kind: string, name: string) => {
    const found = of(kind).filter((o) => o.metadata?.name === name);
    expect(found, `${overlay}: exactly one ${kind} ${name}`).toHaveLength(1);
    return found[0];
  };
  const deployments = new Map<Process, Obj>();
  for (const d of of('Deployment')) {
    const containers = d.spec.template.spec.containers.filter(isPasskeyauth);
    if (containers.length) {
      expect(containers, `${d.metadata.name}: one passkeyauth container`).toHaveLength(1);
      deployments.set(processOf(containers[0]), d);
    }
  }
  const configMaps = new Map(of('ConfigMap').map((c) => [c.metadata.name as string, (c.data ?? {}) as Record<string, string>]));
  const secrets = new Map(
    of('Secret').map((s) => [
      s.metadata.name as string,
      {
        ...Object.fromEntries(Object.entries((s.data ?? {}) as Record<string, string>).map(([k, v]) => [k, Buffer.from(v, 'base64').toString('utf8')])),
        ...((s.stringData ?? {}) as Record<string, string>),
      },
    ]),
  );
  return { objects, of, one, deployments, configMaps, secrets };
}

const RENDERED = Object.fromEntries(OVERLAYS.map((o) => [o, load(o)])) as Record<Overlay, Rendered>;

// ───────────────────────────── helpers ─────────────────────────────

interface LabelSelector {
  matchLabels?: Record<string, string>;
  matchExpressions?: { key: string; operator: string; values?: string[] }[];
}

function selects(selector: LabelSelector | undefined, labels: Record<string, string>): boolean {
  if (!selector) return false;
  for (const [k, v] of Object.entries(selector.matchLabels ?? {})) if (labels[k] !== v) return false;
  for (const e of selector.matchExpressions ?? []) {
    const has = Object.hasOwn(labels, e.key);
    if (e.operator === 'In' && !(has && e.values?.includes(labels[e.key]))) return false;
    if (e.operator === 'NotIn' && has && e.values?.includes(labels[e.key])) return false;
    if (e.operator === 'Exists' && !has) return false;
    if (e.operator === 'DoesNotExist' && has) return false;
  }
  return true;
}

/** Pod templates of every workload, with the workload's kind and name. */
function podTemplates(r: Rendered): { kind: string; name: string; labels: Record<string, string>; spec: Obj }[] {
  return r.objects
    .filter((o) => WORKLOADS.has(o.kind))
    .map((o) => ({ kind: o.kind, name: o.metadata.name, labels: o.spec.template.metadata?.labels ?? {}, spec: o.spec.template.spec }));
}

/** The environment a container gets (names → value, or null when the value comes from a Secret that is not rendered). */
function resolveEnv(r: Rendered, c: Obj): Map<string, { value: string | null; optional: boolean; source: string }> {
  const env = new Map<string, { value: string | null; optional: boolean; source: string }>();
  for (const from of c.envFrom ?? []) {
    if (from.configMapRef) {
      const data = r.configMaps.get(from.configMapRef.name);
      expect(data, `envFrom ConfigMap ${from.configMapRef.name} is rendered`).toBeDefined();
      for (const [k, v] of Object.entries(data ?? {})) env.set(`${from.prefix ?? ''}${k}`, { value: v, optional: false, source: `configMap ${from.configMapRef.name}` });
    } else {
      throw new Error(`container ${c.name}: envFrom ${JSON.stringify(from)}: the variables it sets cannot be checked; list them under env`);
    }
  }
  for (const e of c.env ?? []) {
    if (e.value !== undefined) env.set(e.name, { value: String(e.value), optional: false, source: 'value' });
    else if (e.valueFrom?.configMapKeyRef) {
      const ref = e.valueFrom.configMapKeyRef;
      const data = r.configMaps.get(ref.name);
      expect(data, `${c.name} ${e.name}: ConfigMap ${ref.name} is rendered`).toBeDefined();
      if (!ref.optional) expect(Object.keys(data ?? {}), `${c.name} ${e.name}: ConfigMap ${ref.name} has key ${ref.key}`).toContain(ref.key);
      env.set(e.name, { value: data?.[ref.key] ?? null, optional: ref.optional === true, source: `configMap ${ref.name}/${ref.key}` });
    } else if (e.valueFrom?.secretKeyRef) {
      const ref = e.valueFrom.secretKeyRef;
      // One Secret, keyed by variable name (the `kubectl create secret` command of docs/operations.md, "Secrets", relies on it).
      expect(ref.key, `${c.name} ${e.name}: Secret key`).toBe(e.name);
      const data = r.secrets.get(ref.name);
      env.set(e.name, { value: data ? (data[ref.key] ?? null) : null, optional: ref.optional === true, source: `secret ${ref.name}/${ref.key}` });
    } else throw new Error(`${c.name} ${e.name}: unsupported env source ${JSON.stringify(e)}`);
  }
  return env;
}

const passkeyauthContainers = (r: Rendered) =>
  [...r.deployments.entries()].map(([p, d]) => ({ process: p, deployment: d, container: d.spec.template.spec.containers.find(isPasskeyauth) as Obj }));

// ───────────────────────────── network policy evaluation ─────────────────────────────

/** An endpoint of a connection: a pod of this namespace (by labels), or something outside it. */
type Peer = { pod: Record<string, string> } | { external: 'internet' | 'other-namespace'; namespaceLabels?: Record<string, string> };

/** Whether a rule's from/to list admits a peer; `namespaceLabels` are the labels of the policies' own namespace. */
function peerMatches(peers: Obj[] | undefined, peer: Peer, namespaceLabels: Record<string, string>): boolean {
  if (!peers || peers.length === 0) return true;
  const selectsAll = (s: LabelSelector | undefined) => !!s && Object.keys(s).length === 0;
  return peers.some((p) => {
    if (p.ipBlock) return 'external' in peer && peer.external === 'internet' && p.ipBlock.cidr === '0.0.0.0/0';
    if ('pod' in peer) {
      // No namespaceSelector: the policy's namespace; otherwise the selector must admit it.
      if (p.namespaceSelector && !selectsAll(p.namespaceSelector) && !selects(p.namespaceSelector, namespaceLabels)) return false;
      return p.podSelector ? selects(p.podSelector, peer.pod) : true;
    }
    if (peer.external === 'internet' || !p.namespaceSelector) return false;
    // A pod of another namespace: its labels are unknown, so only an empty podSelector admits it.
    if (p.podSelector && !selectsAll(p.podSelector)) return false;
    return selectsAll(p.namespaceSelector) || selects(p.namespaceSelector, peer.namespaceLabels ?? {});
  });
}

function portMatches(ports: Obj[] | undefined, port: number, protocol: string): boolean {
  if (!ports || ports.length === 0) return true;
  return ports.some((p) => (p.protocol ?? 'TCP') === protocol && (p.port === undefined || p.port === port || (p.endPort !== undefined && port >= p.port && port <= p.endPort)));
}

function allowed(r: Rendered, direction: 'Ingress' | 'Egress', pod: Record<string, string>, other: Peer, port: number, protocol = 'TCP'): boolean {
  const policies = r.of('NetworkPolicy').filter((np) => selects(np.spec.podSelector, pod) && (np.spec.policyTypes ?? ['Ingress']).includes(direction));
  if (policies.length === 0) return true;
  const ns = r.of('Namespace')[0]?.metadata;
  const namespaceLabels = { ...(ns?.labels ?? {}), 'kubernetes.io/metadata.name': ns?.name };
  const key = direction === 'Ingress' ? 'ingress' : 'egress';
  const peersKey = direction === 'Ingress' ? 'from' : 'to';
  return policies.some((np) => (np.spec[key] ?? []).some((rule: Obj) => portMatches(rule.ports, port, protocol) && peerMatches(rule[peersKey], other, namespaceLabels)));
}

/** A TCP connection between two pods of the namespace: the source's egress and the destination's ingress must both allow it. */
const connects = (r: Rendered, from: Record<string, string>, to: Record<string, string>, port: number) =>
  allowed(r, 'Egress', from, { pod: to }, port) && allowed(r, 'Ingress', to, { pod: from }, port);

const podLabels = (r: Rendered, p: Process) => r.deployments.get(p).spec.template.metadata.labels as Record<string, string>;

// ───────────────────────────── the tests ─────────────────────────────

describe('what the processes read', () => {
  it('finds the configuration of every process in the source', () => {
    for (const p of PROCESSES) {
      expect([...READS[p].keys()], p).toEqual(expect.arrayContaining(['HOST', 'SHUTDOWN_DRAIN_MS', 'LOG_LEVEL']));
      expect(defaultPorts(p).length, `${p} port variables`).toBeGreaterThan(0);
    }
    expect(defaultPorts('gateway').map((d) => d.port).sort()).toEqual([8080, 8081]);
    expect(SERVICES.map((s) => defaultPorts(s)[0].port)).toEqual([7101, 7102, 7103, 7104]);
    expect([...READS.challenge.keys()]).toEqual(expect.arrayContaining(['SMTP_URL', 'TWILIO_FROM', 'DELIVERY_TIMEOUT_MS', 'RATE_LIMIT_VERIFY_PER_ADDRESS_SECONDS']));
    expect(callees('gateway')).toEqual(['ceremony', 'challenge', 'connect', 'events']);
    // The NetworkPolicies follow callees(); the internal call policy must name the same graph.
    for (const p of PROCESSES) expect(calleesOf(p), `${p} may call (internalCallPolicy.ts)`).toEqual(callees(p));
    expect(LISTENER_GRACE_MS).toBeGreaterThan(0);
    expect(KUSTOMIZE_MAJOR).toBeGreaterThanOrEqual(5);
  });
});

describe.each(OVERLAYS)('overlay %s', (overlay) => {
  const r = RENDERED[overlay];
  const production = overlay !== 'dev';

  it('renders every process with its Deployment, Service and ServiceAccount', () => {
    expect([...r.deployments.keys()].sort()).toEqual([...PROCESSES].sort());
    for (const p of PROCESSES) {
      const d = r.deployments.get(p);
      const service = r.one('Service', p);
      const sa = r.one('ServiceAccount', d.spec.template.spec.serviceAccountName);
      expect(sa.automountServiceAccountToken, `${p} ServiceAccount`).toBe(false);
      expect(service).toBeDefined();
    }
  });

  it('validates every object against the Kubernetes schemas (ServiceMonitor: its required shape)', async () => {
    for (const o of r.objects) {
      const what = `${o.kind} ${o.metadata?.name}`;
      if (o.apiVersion === 'monitoring.coreos.com/v1' && o.kind === 'ServiceMonitor') {
        expect(o.metadata?.name, what).toMatch(/^[a-z0-9-]+$/);
        expect(o.spec?.selector?.matchLabels, `${what} selector`).toBeTypeOf('object');
        expect(Array.isArray(o.spec?.endpoints) && o.spec.endpoints.length > 0, `${what} endpoints`).toBe(true);
        for (const e of o.spec.endpoints) {
          expect(e.port, `${what} endpoint port name`).toBeTypeOf('string');
          expect(e.path, `${what} endpoint path`).toBe('/metrics');
        }
        continue;
      }
      const model = MODELS[`${o.apiVersion}/${o.kind}`];
      expect(model, `${what}: ${o.apiVersion} ${o.kind} is a kind these manifests may use`).toBeDefined();
      const mod = (await import(model)) as Record<string, new (data: unknown) => { validate(): void }>;
      const Model = mod[o.kind];
      // kustomize wraps long base64 Secret values over lines; the API server's decoder ignores line breaks, the schema's format does not.
      const data = o.kind === 'Secret' && o.data ? Object.fromEntries(Object.entries(o.data as Record<string, string>).map(([k, v]) => [k, v.replace(/\s+/g, '')])) : undefined;
      expect(() => new Model(data ? { ...o, data } : o).validate(), what).not.toThrow();
    }
  });

  it('puts every object into the overlay namespace', () => {
    const namespaces = r.of('Namespace');
    expect(namespaces).toHaveLength(1);
    const ns = namespaces[0];
    expect(ns.metadata.labels?.['pod-security.kubernetes.io/enforce']).toBe('restricted');
    for (const o of r.objects.filter((o) => o.kind !== 'Namespace')) expect(o.metadata.namespace, `${o.kind} ${o.metadata.name}`).toBe(ns.metadata.name);
  });

  it('locks down every pod and container (non-root, read-only root, no capabilities, seccomp, no token)', () => {
    for (const t of podTemplates(r)) {
      const what = `${t.kind} ${t.name}`;
      const pod = t.spec.securityContext ?? {};
      expect(pod.runAsNonRoot, `${what} pod runAsNonRoot`).toBe(true);
      expect(pod.seccompProfile?.type, `${what} pod seccomp`).toBe('RuntimeDefault');
      expect(t.spec.automountServiceAccountToken, `${what} automountServiceAccountToken`).toBe(false);
      expect(t.spec.enableServiceLinks, `${what} enableServiceLinks`).toBe(false);
      expect(t.spec.hostNetwork ?? false, what).toBe(false);
      expect(t.spec.hostPID ?? false, what).toBe(false);
      for (const c of [...(t.spec.initContainers ?? []), ...t.spec.containers]) {
        const sc = c.securityContext ?? {};
        const cw = `${what} container ${c.name}`;
        expect(sc.runAsNonRoot, `${cw} runAsNonRoot`).toBe(true);
        expect(sc.readOnlyRootFilesystem, `${cw} readOnlyRootFilesystem`).toBe(true);
        expect(sc.allowPrivilegeEscalation, `${cw} allowPrivilegeEscalation`).toBe(false);
        expect(sc.privileged ?? false, `${cw} privileged`).toBe(false);
        expect(sc.capabilities?.drop, `${cw} capabilities.drop`).toEqual(['ALL']);
        expect(sc.capabilities?.add ?? [], `${cw} capabilities.add`).toEqual([]);
        expect(sc.seccompProfile?.type, `${cw} seccomp`).toBe('RuntimeDefault');
        for (const kind of ['requests', 'limits']) {
          expect(c.resources?.[kind]?.cpu, `${cw} resources.${kind}.cpu`).toBeDefined();
          expect(c.resources?.[kind]?.memory, `${cw} resources.${kind}.memory`).toBeDefined();
        }
        if (t.kind !== 'Job') {
          expect(c.readinessProbe, `${cw} readinessProbe`).toBeDefined();
          expect(c.livenessProbe, `${cw} livenessProbe`).toBeDefined();
        }
        if (isPasskeyauth(c)) {
          expect(pod.runAsUser, `${what} pod runAsUser`).toBe(PASSKEYAUTH_UID);
          expect(sc.runAsUser, `${cw} runAsUser`).toBe(PASSKEYAUTH_UID);
          // The only writable place: an emptyDir at /tmp.
          const tmp = (c.volumeMounts ?? []).find((m: Obj) => m.mountPath === '/tmp');
          expect(tmp, `${cw} /tmp mount`).toBeDefined();
          expect(t.spec.volumes.find((v: Obj) => v.name === tmp.name)?.emptyDir, `${cw} /tmp is an emptyDir`).toBeDefined();
        }
      }
    }
    for (const sa of r.of('ServiceAccount')) expect(sa.automountServiceAccountToken, `ServiceAccount ${sa.metadata.name}`).toBe(false);
  });

  it('sizes every process’s heap within its memory limit, and keeps the image’s source maps', () => {
    for (const { process: p, container: c } of passkeyauthContainers(r)) {
      const options = resolveEnv(r, c).get('NODE_OPTIONS')?.value ?? '';
      const oldMb = Number(/--max-old-space-size=(\d+)/.exec(options)?.[1]);
      const semiMb = Number(/--max-semi-space-size=(\d+)/.exec(options)?.[1]);
      const limit = String(c.resources.limits.memory);
      const limitMb = Number(/^(\d+)Mi$/.exec(limit)?.[1] ?? (/^(\d+)Gi$/.test(limit) ? Number(limit.slice(0, -2)) * 1024 : NaN));
      expect(oldMb, `${p} NODE_OPTIONS sets --max-old-space-size`).toBeGreaterThan(0);
      // Without it Node 24 grows each semi-space to 64 MB: 192 MB of young generation.
      expect(semiMb, `${p} NODE_OPTIONS sets --max-semi-space-size`).toBeGreaterThan(0);
      // V8's heap limit is the old generation plus three semi-spaces; the rest of the memory
      // limit is for code, buffers and the runtime itself.
      const heapMb = oldMb + 3 * semiMb;
      expect(heapMb, `${p} heap ${heapMb} MB within three quarters of its ${limit} limit`).toBeLessThanOrEqual((limitMb * 3) / 4);
      // NODE_OPTIONS replaces the image's own (Dockerfile), which turns source maps on.
      expect(options.split(/\s+/), `${p} NODE_OPTIONS keeps --enable-source-maps`).toContain('--enable-source-maps');
    }
  });

  it('probes every process on /healthz (startup, liveness) and /readyz (readiness) at its first port', () => {
    for (const { process: p, container: c } of passkeyauthContainers(r)) {
      const first = c.ports[0].name;
      expect(c.startupProbe?.httpGet, `${p} startupProbe`).toMatchObject({ path: '/healthz', port: first });
      expect(c.livenessProbe?.httpGet, `${p} livenessProbe`).toMatchObject({ path: '/healthz', port: first });
      expect(c.readinessProbe?.httpGet, `${p} readinessProbe`).toMatchObject({ path: '/readyz', port: first });
    }
  });

  it('drains on shutdown: preStop pause, then SHUTDOWN_DRAIN_MS and the listener grace fit the termination grace period', () => {
    for (const { process: p, deployment: d, container: c } of passkeyauthContainers(r)) {
      const command: string[] = c.lifecycle?.preStop?.exec?.command ?? [];
      // The image has no shell: the pause runs on the image's own node binary.
      expect(command[0], `${p} preStop runs ${IMAGE_NODE}`).toBe(IMAGE_NODE);
      const pause = /^setTimeout\(\(\) => \{\}, (\d+)\)$/.exec(command[2] ?? '');
      expect(command[1], `${p} preStop`).toBe('-e');
      expect(pause, `${p} preStop pause: ${JSON.stringify(command)}`).not.toBeNull();
      const pauseMs = Number(pause?.[1]);
      const drain = resolveEnv(r, c).get('SHUTDOWN_DRAIN_MS')?.value;
      expect(drain, `${p} SHUTDOWN_DRAIN_MS`).toMatch(/^\d+$/);
      const needed = (pauseMs + Number(drain) + LISTENER_GRACE_MS) / 1000;
      const grace = d.spec.template.spec.terminationGracePeriodSeconds;
      expect(pauseMs, `${p} preStop pause covers the drain`).toBeGreaterThanOrEqual(Number(drain));
      expect(grace, `${p} terminationGracePeriodSeconds ≥ ${needed}`).toBeGreaterThan(needed);
    }
  });

  it('provides every variable each process reads, sets nothing else, and the values pass the processes’ checks', () => {
    const used = new Set<string>();
    for (const { process: p, container: c } of passkeyauthContainers(r)) {
      const reads = READS[p];
      const env = resolveEnv(r, c);
      for (const e of c.env ?? []) if (e.valueFrom?.configMapKeyRef) used.add(`${e.valueFrom.configMapKeyRef.name}/${e.valueFrom.configMapKeyRef.key}`);
      expect([...env.keys()].filter((n) => !reads.has(n)), `${p} sets variables it does not read`).toEqual([]);
      expect([...reads.keys()].filter((n) => !env.has(n)), `${p} reads variables the manifests do not provide`).toEqual([]);
      for (const req of [...reads.values()].filter((x) => x.required)) {
        const got = env.get(req.name);
        expect(got?.optional, `${p} ${req.name} is required, so not optional`).toBe(false);
        if (got?.value !== null) expect(got?.value, `${p} ${req.name}`).not.toBe('');
      }
      // Replay the process's EnvReader calls over the values the manifests give it.
      const values: NodeJS.ProcessEnv = {};
      for (const [name, v] of env) values[name] = v.value ?? (v.optional ? undefined : `from-secret-${name}`);
      const reader = new EnvReader(values);
      for (const x of reads.values()) {
        if (x.kind === 'port') reader.port(x.name, x.fallback ?? 0);
        else if (x.kind === 'int') reader.int(x.name, x.fallback ?? 0, x.min ?? 0, x.max ?? 0);
        else if (x.kind === 'url') reader.url(x.name, 'http://fallback.invalid');
        else if (x.kind === 'string') reader.string(x.name, x.required ? undefined : 'fallback');
      }
      expect(() => reader.done(), `${p} configuration`).not.toThrow();
      for (const { name, port } of defaultPorts(p)) {
        expect(values[name], `${p} ${name} is its default port`).toBe(String(port));
        expect(c.ports.map((cp: Obj) => cp.containerPort), `${p} containerPort ${port}`).toContain(port);
      }
      expect(values.HOST, `${p} listens on every interface`).toBe('0.0.0.0');
      expect(['trace', 'debug', 'info', 'warn', 'error', 'fatal'], `${p} LOG_LEVEL`).toContain(values.LOG_LEVEL);
      if (p === 'gateway') expect(values.TRUST_FORWARDED_FOR, 'the gateway runs behind the ingress controller').toBe('true');
      if (p === 'challenge') expect(readDeliveryEnv(values).problems, 'challenge delivery configuration').toEqual([]);
      if (p === 'connect') {
        expect(() => frontendApiUrlFor(values.FRONTEND_API_URL ?? '', 'pro-1')).not.toThrow();
        expect(() => checkBaseUrl('BACKEND_API_URL', values.BACKEND_API_URL ?? '')).not.toThrow();
      }
      if (values.MASTER_KEY && !values.MASTER_KEY.startsWith('from-secret-')) expect(() => parseMasterKey(values.MASTER_KEY ?? '')).not.toThrow();
      if (values.INTERNAL_AUTH_KEYS && !values.INTERNAL_AUTH_KEYS.startsWith('from-secret-')) expect(() => parseInternalAuthKeys(values.INTERNAL_AUTH_KEYS ?? '')).not.toThrow();
      // Where the process finds the services: a rendered Service with that port.
      for (const s of callees(p)) {
        const url = new URL(values[`${s.toUpperCase()}_URL`] ?? '');
        const service = r.one('Service', url.hostname);
        expect(service.spec.selector, `${p} ${s.toUpperCase()}_URL reaches ${s}`).toEqual({ 'app.kubernetes.io/name': s });
        expect(service.spec.ports.map((sp: Obj) => sp.port)).toContain(Number(url.port));
      }
    }
    for (const [name, data] of r.configMaps) {
      expect(Object.keys(data).filter((k) => !used.has(`${name}/${k}`)), `ConfigMap ${name}: keys no container reads`).toEqual([]);
    }
  });

  it('keeps secret values out of the repository (production) and generates obviously-dev ones (dev)', () => {
    const refs = passkeyauthContainers(r).flatMap(({ container: c }) => (c.env ?? []).filter((e: Obj) => e.valueFrom?.secretKeyRef).map((e: Obj) => e.valueFrom.secretKeyRef.name));
    if (production) {
      expect(r.of('Secret'), 'production renders no Secret: it is created with kubectl').toEqual([]);
      expect(new Set(refs)).toEqual(new Set([SECRET_NAME]));
    } else {
      const secrets = r.of('Secret');
      expect(secrets).toHaveLength(1);
      expect(secrets[0].metadata.name.startsWith(`${SECRET_NAME}-`), 'generated (hash-suffixed) Secret').toBe(true);
      expect(new Set(refs)).toEqual(new Set([secrets[0].metadata.name]));
      const data = r.secrets.get(secrets[0].metadata.name) ?? {};
      expect(data.MONGODB_URI).toMatch(/^mongodb:\/\/mongo-0\.mongo:27017\/[a-z]+\?replicaSet=rs0$/);
      expect(data.SMTP_URL).toBe('smtp://mailcatcher:1025');
    }
  });

  it('exposes each process on its default ports, and every selector matches the pods', () => {
    const templates = podTemplates(r);
    for (const [p, d] of r.deployments) {
      const labels = podLabels(r, p);
      expect(selects(d.spec.selector, labels), `${p} Deployment selector`).toBe(true);
      const service = r.one('Service', p);
      expect(
        templates.filter((t) => selects({ matchLabels: service.spec.selector }, t.labels)).map((t) => t.name),
        `Service ${p} selects the ${p} pods only`,
      ).toEqual([d.metadata.name]);
      expect(service.spec.ports.map((sp: Obj) => sp.port).sort(), `Service ${p} ports`).toEqual(defaultPorts(p).map((x) => x.port).sort());
      const container = d.spec.template.spec.containers.find(isPasskeyauth);
      for (const sp of service.spec.ports) {
        const target = container.ports.find((cp: Obj) => cp.name === sp.targetPort || cp.containerPort === sp.targetPort);
        expect(target?.containerPort, `Service ${p} port ${sp.port} → container port`).toBe(sp.port);
      }
      const hpa = r.of('HorizontalPodAutoscaler').filter((h) => h.spec.scaleTargetRef.kind === 'Deployment' && h.spec.scaleTargetRef.name === d.metadata.name);
      expect(hpa, `${p} HorizontalPodAutoscaler`).toHaveLength(1);
      expect(hpa[0].spec.scaleTargetRef.apiVersion).toBe('apps/v1');
      expect(hpa[0].spec.metrics.some((m: Obj) => m.type === 'Resource' && m.resource.name === 'cpu'), `${p} HPA scales on CPU`).toBe(true);
      expect(container.resources.requests.cpu, `${p}: CPU utilization needs a request`).toBeDefined();
      expect(d.spec.replicas, `${p}: the HPA owns the replica count`).toBeUndefined();
      expect(hpa[0].spec.maxReplicas).toBeGreaterThanOrEqual(hpa[0].spec.minReplicas);
      const pdbs = r.of('PodDisruptionBudget').filter((b) => selects(b.spec.selector, labels));
      if (production) {
        expect(hpa[0].spec.minReplicas, `${p} runs at least two replicas`).toBeGreaterThanOrEqual(2);
        expect(pdbs.map((b) => b.spec.minAvailable), `${p} PodDisruptionBudget`).toEqual([1]);
      } else {
        // One replica in dev: a minAvailable 1 budget would block every node drain.
        expect(pdbs, `${p} no PodDisruptionBudget with one replica`).toEqual([]);
      }
    }
    for (const b of r.of('PodDisruptionBudget')) {
      expect(templates.filter((t) => selects(b.spec.selector, t.labels)), `PDB ${b.metadata.name} selects pods`).toHaveLength(1);
    }
    for (const s of r.of('Service')) {
      expect(templates.some((t) => selects({ matchLabels: s.spec.selector }, t.labels)), `Service ${s.metadata.name} selects a workload`).toBe(true);
    }
  });

  it('pins the image', () => {
    for (const { process: p, container: c } of passkeyauthContainers(r)) {
      expect(c.image, `${p} image tag`).toMatch(/:[A-Za-z0-9][A-Za-z0-9._-]*$/);
      expect(c.image.endsWith(':latest'), `${p} not :latest`).toBe(false);
    }
  });

  it('denies by default and allows exactly the call graph between the processes', () => {
    const policies = r.of('NetworkPolicy');
    expect(
      policies.some((np) => Object.keys(np.spec.podSelector).length === 0 && ['Ingress', 'Egress'].every((t) => np.spec.policyTypes?.includes(t)) && !np.spec.ingress && !np.spec.egress),
      'a default-deny policy for all pods, both directions',
    ).toBe(true);
    for (const from of PROCESSES) {
      for (const to of PROCESSES) {
        if (from === to) continue;
        for (const { port } of defaultPorts(to)) {
          const expected = to !== 'gateway' && callees(from).includes(to);
          expect(connects(r, podLabels(r, from), podLabels(r, to), port), `${from} → ${to}:${port}`).toBe(expected);
        }
      }
    }
    // Every pod resolves names.
    for (const t of podTemplates(r)) expect(allowed(r, 'Egress', t.labels, { external: 'other-namespace' }, 53, 'UDP'), `${t.name} DNS`).toBe(true);
    // From outside the namespace (the ingress controller): the gateway only.
    for (const p of PROCESSES) {
      for (const { port } of defaultPorts(p)) {
        expect(allowed(r, 'Ingress', podLabels(r, p), { external: 'other-namespace', namespaceLabels: { 'kubernetes.io/metadata.name': 'ingress-nginx' } }, port), `ingress → ${p}:${port}`).toBe(p === 'gateway');
      }
    }
  });

  it('lets only the four services reach MongoDB, only the challenge service send mail and SMS, only the events service post webhooks', () => {
    const mongoPods = podTemplates(r).filter((t) => t.labels['app.kubernetes.io/name'] === 'mongo');
    for (const p of PROCESSES) {
      const labels = podLabels(r, p);
      const reachesMongo = production
        ? allowed(r, 'Egress', labels, { external: 'internet' }, 27017)
        : mongoPods.some((m) => connects(r, labels, m.labels, 27017));
      expect(reachesMongo, `${p} → MongoDB`).toBe(p !== 'gateway');
      // Whatever MongoDB is, the gateway has no way to port 27017 anywhere.
      expect(allowed(r, 'Egress', labels, { external: 'internet' }, 27017) || allowed(r, 'Egress', labels, { external: 'other-namespace' }, 27017), `${p} egress 27017`).toBe(
        production && p !== 'gateway',
      );
      for (const port of [25, 465, 587, 443]) {
        // The events service posts webhooks to the applications' receivers (HTTPS, and HTTP below), in every overlay.
        expect(allowed(r, 'Egress', labels, { external: 'internet' }, port), `${p} → internet:${port}`).toBe((production && p === 'challenge') || (p === 'events' && port === 443));
      }
      expect(allowed(r, 'Egress', labels, { external: 'internet' }, 80), `${p} → internet:80`).toBe(p === 'events');
    }
    if (!production) {
      expect(mongoPods).toHaveLength(1);
      const catcher = podTemplates(r).find((t) => t.labels['app.kubernetes.io/name'] === 'mailcatcher');
      expect(catcher).toBeDefined();
      for (const p of PROCESSES) expect(connects(r, podLabels(r, p), catcher?.labels ?? {}, 1025), `${p} → mailcatcher:1025`).toBe(p === 'challenge');
      // Nothing else in the namespace reaches MongoDB except its init Job.
      for (const t of podTemplates(r).filter((t) => !SERVICES.includes(t.labels['app.kubernetes.io/name'] as Process))) {
        const expected = ['mongo', 'mongo-init'].includes(t.labels['app.kubernetes.io/name']);
        expect(connects(r, t.labels, mongoPods[0].labels, 27017), `${t.name} → mongo`).toBe(expected);
      }
    }
  });

  if (overlay === 'dev') {
    it('initiates the MongoDB replica set idempotently and points the services at it', () => {
      const sts = r.one('StatefulSet', 'mongo');
      const mongo = sts.spec.template.spec.containers[0];
      expect(mongo.image).toMatch(/^mongo:7/);
      expect(mongo.args.join(' ')).toContain('--replSet rs0');
      const headless = r.one('Service', sts.spec.serviceName);
      expect(headless.spec.clusterIP).toBe('None');
      expect(headless.spec.publishNotReadyAddresses).toBe(true);
      const job = r.one('Job', 'mongo-init-replica-set');
      const script = job.spec.template.spec.containers[0].command.join('\n');
      expect(script).toContain('replSetGetStatus');
      expect(script).toContain('replSetInitiate');
      expect(script).toContain("host = 'mongo-0.mongo:27017'");
      // Already initiated (replSetGetStatus succeeds) → no initiate; only NotYetInitialized (94) → initiate.
      expect(script).toMatch(/if \(status\.ok === 1\) \{[\s\S]*\} else if \(status\.code === 94\) \{[\s\S]*replSetInitiate[\s\S]*\} else \{\s*throw/);
    });

    it('runs the replica set script against a simulated mongod: waits, initiates once, then is a no-op', () => {
      const command: string[] = r.one('Job', 'mongo-init-replica-set').spec.template.spec.containers[0].command;
      expect(command.slice(0, 4)).toEqual(['mongosh', '--nodb', '--quiet', '--eval']);
      const script = command[4];
      /** A mongod as mongosh sees it: unreachable for a while, then answering; runCommand throws on errors as mongosh does. */
      const simulate = (state: { unreachable: number; initiated: boolean; helloUntilPrimary: number }) => {
        const commands: string[] = [];
        const fail = (code: number, errmsg: string) => Object.assign(new Error(errmsg), { code });
        const admin = {
          runCommand(cmd: Record<string, unknown>) {
            const name = Object.keys(cmd)[0];
            commands.push(name);
            if (name === 'ping') return { ok: 1 };
            if (name === 'replSetGetStatus') {
              if (!state.initiated) throw fail(94, 'no replset config has been received');
              return { ok: 1, set: 'rs0' };
            }
            if (name === 'replSetInitiate') {
              if (state.initiated) throw fail(23, 'already initialized');
              const config = cmd.replSetInitiate as { _id: string; members: { host: string }[] };
              expect(config).toEqual({ _id: 'rs0', members: [{ _id: 0, host: 'mongo-0.mongo:27017' }] });
              state.initiated = true;
              return { ok: 1 };
            }
            if (name === 'hello') return { ok: 1, isWritablePrimary: state.initiated && state.helloUntilPrimary-- <= 0 };
            throw new Error(`unexpected command ${name}`);
          },
        };
        const printed: string[] = [];
        const context = createContext({
          connect: (url: string) => {
            expect(url).toContain('mongo-0.mongo:27017/admin');
            if (state.unreachable-- > 0) throw new Error('getaddrinfo ENOTFOUND mongo-0.mongo');
            return admin;
          },
          print: (line: string) => printed.push(line),
          sleep: () => undefined,
        });
        runInContext(script, context);
        return { commands, printed };
      };
      const state = { unreachable: 3, initiated: false, helloUntilPrimary: 2 };
      const first = simulate(state);
      expect(first.commands.filter((c) => c === 'replSetInitiate')).toHaveLength(1);
      expect(first.printed.at(-1)).toBe('mongo-0.mongo:27017 is primary');
      const again = simulate({ ...state, unreachable: 0 });
      expect(again.commands).not.toContain('replSetInitiate');
      expect(again.printed).toContain('replica set rs0 already initiated');
    });
  }

  if (production) {
    it('routes only the public paths of the gateway through a TLS Ingress', () => {
      const ingresses = r.of('Ingress');
      expect(ingresses).toHaveLength(1);
      const ing = ingresses[0];
      const tlsHosts: string[] = ing.spec.tls.flatMap((t: Obj) => t.hosts);
      const covered = (host: string) => tlsHosts.some((h) => h === host || (h.startsWith('*.') && host.endsWith(h.slice(1)) && !host.slice(0, -h.length + 1).includes('.')));
      const gateway = r.one('Service', 'gateway');
      const byHost = new Map<string, string>();
      for (const rule of ing.spec.rules) {
        expect(covered(rule.host), `TLS covers ${rule.host}`).toBe(true);
        const paths = rule.http.paths.map((p: Obj) => p.path).sort();
        expect(paths, `${rule.host} paths`).toEqual(['/.well-known', '/docs', '/openapi.json', '/v2']);
        const ports = new Set(rule.http.paths.map((p: Obj) => p.backend.service.port.name ?? p.backend.service.port.number));
        expect(ports.size, `${rule.host}: one listener`).toBe(1);
        for (const p of rule.http.paths) {
          expect(p.backend.service.name).toBe('gateway');
          expect(gateway.spec.ports.some((sp: Obj) => sp.name === p.backend.service.port.name)).toBe(true);
        }
        byHost.set(rule.host, [...ports][0] as string);
      }
      const hosts = [...byHost.keys()];
      const wildcard = hosts.find((h) => h.startsWith('*.'));
      expect(wildcard, 'a wildcard frontend host').toBeDefined();
      const apex = wildcard?.slice(2) ?? '';
      expect(byHost.get(wildcard ?? '')).toBe('frontend');
      expect(byHost.get(apex), `${apex} is the frontend`).toBe('frontend');
      expect(hosts.filter((h) => byHost.get(h) === 'backend'), 'one separate backend host').toHaveLength(1);
      // Projects' frontend URLs live under the wildcard, and the backend URL is the backend host.
      const config = r.configMaps.get('passkeyauth-config') ?? {};
      expect(new URL(frontendApiUrlFor(config.FRONTEND_API_URL ?? '', 'pro-123')).host).toBe(`pro-123.${apex}`);
      expect(new URL(config.BACKEND_API_URL ?? '').host).toBe(hosts.find((h) => byHost.get(h) === 'backend'));
      expect(config.FRONTEND_API_URL?.startsWith('https://') && config.BACKEND_API_URL?.startsWith('https://')).toBe(true);
    });
  }

  it(overlay === 'production-monitoring' ? 'scrapes /metrics of every process with a ServiceMonitor' : 'has no ServiceMonitor (needs the Prometheus Operator CRDs)', () => {
    const monitors = r.of('ServiceMonitor');
    if (overlay !== 'production-monitoring') {
      expect(monitors).toEqual([]);
      return;
    }
    for (const p of PROCESSES) {
      const service = r.one('Service', p);
      const mine = monitors.filter((m) => selects(m.spec.selector, service.metadata.labels ?? {}));
      expect(mine, `${p} ServiceMonitor`).toHaveLength(1);
      for (const e of mine[0].spec.endpoints) {
        expect(service.spec.ports.map((sp: Obj) => sp.name), `${p} ServiceMonitor port`).toContain(e.port);
        const port = service.spec.ports.find((sp: Obj) => sp.name === e.port).port;
        const prometheus = { external: 'other-namespace' as const, namespaceLabels: { 'kubernetes.io/metadata.name': 'monitoring' } };
        expect(allowed(r, 'Ingress', podLabels(r, p), prometheus, port), `Prometheus → ${p}:${port}`).toBe(true);
      }
    }
  });
});
