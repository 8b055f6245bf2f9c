/**
 * Static checks of the deployment files (k8s/, docker-compose.yml, the Dockerfiles). Neither Docker
 * nor a cluster is available where the tests run, so the manifests are parsed and cross-checked:
 * every process gets probes, resources, its port, and every variable its config requires in
 * production (`requiredEnv` and the FLEET_SECRETS its config shape declares, imported from the
 * process's own src/config.ts and packages/config so the two cannot drift). The NetworkPolicies are
 * evaluated (a small model of Kubernetes' semantics) against the service-to-service calls found in
 * services/<name>/src, and the compose trust keys against deriveAssertionKey.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

import { describe, expect, it } from 'vitest';
import { parseAllDocuments } from 'yaml';

import { configShape as billingShape, requiredEnv as billingRequiredEnv } from '../../../services/billing/src/config.ts';
import { configShape as catalogShape, requiredEnv as catalogRequiredEnv } from '../../../services/catalog/src/config.ts';
import { configShape as identityShape, requiredEnv as identityRequiredEnv } from '../../../services/identity/src/config.ts';
import {
  configShape as mediaProcessingShape,
  requiredEnv as mediaProcessingRequiredEnv,
} from '../../../services/media-processing/src/config.ts';
import { configShape as messagingShape, requiredEnv as messagingRequiredEnv } from '../../../services/messaging/src/config.ts';
import { configShape as notificationShape, requiredEnv as notificationRequiredEnv } from '../../../services/notification/src/config.ts';
import { configShape as socialShape, requiredEnv as socialRequiredEnv } from '../../../services/social/src/config.ts';
import { configShape as gatewayShape, requiredEnv as gatewayRequiredEnv } from '../../../gateway/src/config.ts';
import { FLEET_SECRETS } from '../../../packages/config/src/load.ts';
import { deriveAssertionKey } from '../../../packages/http/src/gateway-assertion.ts';
import { assertionSecretKey, deriveFleetKeys } from '../../../scripts/derive-keys.ts';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');
const K8S_DIR = path.join(ROOT, 'k8s');
const NAMESPACE = 'music';

interface Workload {
  name: string;
  port: number;
  /** Folder of the package, relative to the repository root. */
  dir: string;
  requiredEnv: readonly string[];
  /** The process's config shape: loadConfig also requires the FLEET_SECRETS it declares in production. */
  shape: Record<string, unknown>;
}

const SERVICES: readonly Workload[] = [
  { name: 'identity', port: 8081, dir: 'services/identity', requiredEnv: identityRequiredEnv, shape: identityShape },
  { name: 'catalog', port: 8082, dir: 'services/catalog', requiredEnv: catalogRequiredEnv, shape: catalogShape },
  { name: 'media-processing', port: 8083, dir: 'services/media-processing', requiredEnv: mediaProcessingRequiredEnv, shape: mediaProcessingShape },
  { name: 'social', port: 8084, dir: 'services/social', requiredEnv: socialRequiredEnv, shape: socialShape },
  { name: 'messaging', port: 8085, dir: 'services/messaging', requiredEnv: messagingRequiredEnv, shape: messagingShape },
  { name: 'notification', port: 8086, dir: 'services/notification', requiredEnv: notificationRequiredEnv, shape: notificationShape },
  { name: 'billing', port: 8087, dir: 'services/billing', requiredEnv: billingRequiredEnv, shape: billingShape },
];
const GATEWAY: Workload = { name: 'gateway', port: 8080, dir: 'gateway', requiredEnv: gatewayRequiredEnv, shape: gatewayShape };
const WORKLOADS: readonly Workload[] = [...SERVICES, GATEWAY];
const INFRASTRUCTURE = ['postgres', 'nats', 'redis', 'minio'] as const;
const DATABASES = SERVICES.map((s) => `msp_${s.name.replace(/-/g, '_')}`);

/** The trust secrets each kind of process must get (and its config shape must declare). */
const SERVICE_TRUST_SECRETS = ['GATEWAY_ASSERTION_KEY', 'INTERNAL_SERVICE_KEY'] as const;
const GATEWAY_TRUST_SECRETS = ['GATEWAY_SIGNING_KEY', 'METRICS_TOKEN'] as const;
/** Not required by the gateway's config (it defaults to `false`), but behind an ingress it must be the ingress's range. */
const GATEWAY_K8S_ONLY = ['TRUST_PROXY'] as const;

/** What loadConfig refuses to start without in production: requiredEnv plus the declared FLEET_SECRETS. */
function productionEnv(workload: Workload): string[] {
  return [...workload.requiredEnv, ...FLEET_SECRETS.filter((name) => name in workload.shape)];
}

/** Variables a Deployment must provide: the production ones, plus TRUST_PROXY for the gateway. */
function k8sRequiredEnv(workload: Workload): string[] {
  return [...productionEnv(workload), ...(workload === GATEWAY ? GATEWAY_K8S_ONLY : [])];
}

// --- The subset of Kubernetes objects these checks read --------------------------------------------

interface KeyRef {
  name: string;
  key: string;
}
interface EnvVar {
  name: string;
  value?: unknown;
  valueFrom?: {
    configMapKeyRef?: KeyRef;
    secretKeyRef?: KeyRef;
    fieldRef?: { fieldPath: string };
    resourceFieldRef?: { resource: string };
  };
}
interface EnvFromSource {
  prefix?: string;
  configMapRef?: { name: string };
  secretRef?: { name: string };
}
interface Probe {
  httpGet?: { path?: string; port?: string | number };
  exec?: { command?: string[] };
  tcpSocket?: { port?: string | number };
}
type Quantities = Partial<Record<'cpu' | 'memory', string | number>>;
interface Container {
  name: string;
  image?: string;
  args?: string[];
  command?: string[];
  ports?: { name?: string; containerPort: number }[];
  env?: EnvVar[];
  envFrom?: EnvFromSource[];
  readinessProbe?: Probe;
  livenessProbe?: Probe;
  startupProbe?: Probe;
  lifecycle?: { preStop?: { exec?: { command?: string[] }; sleep?: { seconds?: number }; httpGet?: unknown } };
  resources?: { requests?: Quantities; limits?: Quantities };
  volumeMounts?: { name: string; mountPath: string }[];
}
interface PodTemplate {
  metadata?: { labels?: Record<string, string> };
  spec?: {
    containers?: Container[];
    initContainers?: Container[];
    terminationGracePeriodSeconds?: number;
    volumes?: { name: string; configMap?: { name: string } }[];
  };
}
interface Manifest {
  apiVersion?: string;
  kind?: string;
  metadata?: { name?: string; namespace?: string; annotations?: Record<string, string> };
  data?: Record<string, unknown>;
  stringData?: Record<string, unknown>;
  /** Kustomization */
  resources?: string[];
  spec?: {
    replicas?: number;
    serviceName?: string;
    /** Deployments and PDBs use matchLabels; Services list the labels directly. */
    selector?: { matchLabels?: Record<string, string>; [label: string]: unknown };
    template?: PodTemplate;
    volumeClaimTemplates?: { metadata?: { name?: string } }[];
    type?: string;
    ports?: { name?: string; port: number; targetPort?: string | number }[];
    scaleTargetRef?: { apiVersion?: string; kind?: string; name?: string };
    minReplicas?: number;
    maxReplicas?: number;
    metrics?: { type: string; resource?: { name: string; target?: { type?: string; averageUtilization?: number } } }[];
    minAvailable?: number | string;
    maxUnavailable?: number | string;
    /** NetworkPolicy */
    podSelector?: LabelSelector;
    policyTypes?: string[];
    ingress?: PolicyRule[];
    egress?: PolicyRule[];
    rules?: {
      host?: string;
      http?: {
        paths?: {
          path?: string;
          pathType?: string;
          backend?: { service?: { name?: string; port?: { number?: number; name?: string } } };
        }[];
      };
    }[];
  };
}
interface LabelSelector {
  matchLabels?: Record<string, string>;
  matchExpressions?: unknown[];
}
interface PolicyPeer {
  podSelector?: LabelSelector;
  namespaceSelector?: LabelSelector;
  ipBlock?: { cidr: string; except?: string[] };
}
interface PolicyRule {
  from?: PolicyPeer[];
  to?: PolicyPeer[];
  ports?: { protocol?: string; port?: number | string; endPort?: number }[];
}
interface LoadedDocument {
  /** Path relative to k8s/. */
  file: string;
  manifest: Manifest;
}

// --- Loading --------------------------------------------------------------------------------------

function yamlFilesUnder(dir: string): string[] {
  const files: string[] = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) files.push(...yamlFilesUnder(full));
    else if (/\.ya?ml$/.test(entry.name)) files.push(full);
  }
  return files.sort();
}

/** Every document of every YAML file under k8s/, plus the parse problems met on the way. */
function loadK8s(): { files: string[]; documents: LoadedDocument[]; problems: string[] } {
  const files = yamlFilesUnder(K8S_DIR).map((f) => path.relative(K8S_DIR, f).split(path.sep).join('/'));
  const documents: LoadedDocument[] = [];
  const problems: string[] = [];
  for (const file of files) {
    for (const doc of parseAllDocuments(readFileSync(path.join(K8S_DIR, file), 'utf8'))) {
      for (const error of [...doc.errors, ...doc.warnings]) problems.push(`${file}: ${error.message}`);
      const value: unknown = doc.toJS();
      if (value === null || value === undefined) continue;
      if (typeof value !== 'object' || Array.isArray(value)) {
        problems.push(`${file}: a document is not a mapping`);
        continue;
      }
      documents.push({ file, manifest: value as Manifest });
    }
  }
  return { files, documents, problems };
}

const k8s = loadK8s();
const resources = k8s.documents.filter((d) => d.manifest.kind !== 'Kustomization').map((d) => d.manifest);

function findAll(kind: string, name: string): Manifest[] {
  return resources.filter((m) => m.kind === kind && m.metadata?.name === name);
}

/** The single object of that kind and name; fails the test when missing or duplicated. */
function getOne(kind: string, name: string): Manifest {
  const found = findAll(kind, name);
  expect(found, `exactly one ${kind} named ${name} under k8s/`).toHaveLength(1);
  return found[0]!;
}

function deployment(name: string): Manifest {
  return getOne('Deployment', name);
}

function containerOf(workload: Manifest, name: string): Container {
  const container = workload.spec?.template?.spec?.containers?.find((c) => c.name === name);
  expect(container, `${workload.kind}/${workload.metadata?.name} has a container named ${name}`).toBeDefined();
  return container!;
}

function keysOf(kind: 'ConfigMap' | 'Secret', name: string): Set<string> | undefined {
  const found = findAll(kind, name)[0];
  if (!found) return undefined;
  return new Set([...Object.keys(found.data ?? {}), ...Object.keys(found.stringData ?? {})]);
}

/**
 * The variable names a container receives: explicit `env` entries and every key of the ConfigMaps
 * and Secrets pulled in with `envFrom`. A reference to a ConfigMap/Secret or key that is not in k8s/
 * is reported as a problem (the kubelet would refuse to start the pod).
 */
function resolveEnv(container: Container): { names: Set<string>; problems: string[] } {
  const names = new Set<string>();
  const problems: string[] = [];
  const checkRef = (kind: 'ConfigMap' | 'Secret', variable: string, ref: KeyRef) => {
    const keys = keysOf(kind, ref.name);
    if (!keys) problems.push(`${variable}: ${kind} ${ref.name} is not defined under k8s/`);
    else if (!keys.has(ref.key)) problems.push(`${variable}: ${kind} ${ref.name} has no key ${ref.key}`);
    else names.add(variable);
  };
  for (const variable of container.env ?? []) {
    const from = variable.valueFrom;
    if (variable.value !== undefined) {
      if (typeof variable.value !== 'string') problems.push(`${variable.name}: value must be a string`);
      else names.add(variable.name);
    } else if (from?.configMapKeyRef) checkRef('ConfigMap', variable.name, from.configMapKeyRef);
    else if (from?.secretKeyRef) checkRef('Secret', variable.name, from.secretKeyRef);
    else if (from?.fieldRef || from?.resourceFieldRef) names.add(variable.name);
    else problems.push(`${variable.name}: neither value nor valueFrom`);
  }
  for (const source of container.envFrom ?? []) {
    const [kind, ref] = source.configMapRef
      ? (['ConfigMap', source.configMapRef] as const)
      : source.secretRef
        ? (['Secret', source.secretRef] as const)
        : [undefined, undefined];
    if (!kind || !ref) {
      problems.push('envFrom entry without configMapRef or secretRef');
      continue;
    }
    const keys = keysOf(kind, ref.name);
    if (!keys) problems.push(`envFrom: ${kind} ${ref.name} is not defined under k8s/`);
    else for (const key of keys) names.add(`${source.prefix ?? ''}${key}`);
  }
  return { names, problems };
}

/** The container port a probe or Service targets (by number or by port name). */
function resolvePort(container: Container, port: string | number | undefined): number | undefined {
  if (typeof port === 'number') return port;
  return container.ports?.find((p) => p.name === port)?.containerPort;
}

function matchesSelector(selector: Record<string, unknown> | undefined, labels: Record<string, string> | undefined) {
  if (!selector || Object.keys(selector).length === 0) return false;
  return Object.entries(selector).every(([key, value]) => labels?.[key] === value);
}

// --- docker-compose.yml ---------------------------------------------------------------------------

interface ComposeService {
  image?: string;
  build?: string | { context?: string; dockerfile?: string; args?: Record<string, string> };
  command?: string | string[];
  environment?: Record<string, unknown> | string[];
  depends_on?: string[] | Record<string, { condition?: string }>;
  healthcheck?: { test?: string | string[]; disable?: boolean };
  ports?: (string | number | { target?: number; published?: number | string })[];
  volumes?: (string | { source?: string; target?: string })[];
}
interface ComposeFile {
  services?: Record<string, ComposeService>;
  volumes?: Record<string, unknown>;
}

function loadCompose(): { compose: ComposeFile; problems: string[] } {
  // Compose files use YAML merge keys (`<<: *anchor`) for the shared service environment.
  const docs = parseAllDocuments(readFileSync(path.join(ROOT, 'docker-compose.yml'), 'utf8'), { merge: true });
  const problems = docs.flatMap((d) => [...d.errors, ...d.warnings].map((e) => e.message));
  if (docs.length !== 1) problems.push(`expected one YAML document, found ${docs.length}`);
  return { compose: (docs[0]?.toJS() ?? {}) as ComposeFile, problems };
}

const { compose, problems: composeProblems } = loadCompose();

function composeEnvironment(service: ComposeService): Map<string, string> {
  const env = new Map<string, string>();
  if (Array.isArray(service.environment)) {
    for (const entry of service.environment) {
      const [key = '', ...rest] = entry.split('=');
      env.set(key, rest.join('='));
    }
  } else {
    for (const [key, value] of Object.entries(service.environment ?? {})) env.set(key, value === null ? '' : String(value));
  }
  return env;
}

function composeDependencies(service: ComposeService): Map<string, string | undefined> {
  const deps = new Map<string, string | undefined>();
  if (Array.isArray(service.depends_on)) for (const name of service.depends_on) deps.set(name, undefined);
  else for (const [name, dep] of Object.entries(service.depends_on ?? {})) deps.set(name, dep?.condition);
  return deps;
}

// --- Tests ----------------------------------------------------------------------------------------

describe('k8s manifests', () => {
  it('parses every YAML document under k8s/ without errors', () => {
    expect(k8s.files.length).toBeGreaterThan(0);
    expect(k8s.problems).toEqual([]);
    for (const { file, manifest } of k8s.documents) {
      expect(manifest.apiVersion, `${file}: apiVersion`).toEqual(expect.any(String));
      expect(manifest.kind, `${file}: kind`).toEqual(expect.any(String));
    }
  });

  it('lists every manifest file in k8s/kustomization.yaml', () => {
    const kustomization = k8s.documents.find((d) => d.file === 'kustomization.yaml')?.manifest;
    expect(kustomization?.kind).toBe('Kustomization');
    const listed = [...(kustomization?.resources ?? [])].sort();
    expect(listed).toEqual(k8s.files.filter((f) => f !== 'kustomization.yaml'));
  });

  it(`puts every resource in the ${NAMESPACE} namespace and keeps ConfigMap/Secret values strings`, () => {
    const namespace = getOne('Namespace', NAMESPACE);
    expect(namespace.apiVersion).toBe('v1');
    for (const { file, manifest } of k8s.documents) {
      if (manifest.kind === 'Namespace' || manifest.kind === 'Kustomization') continue;
      expect(manifest.metadata?.namespace, `${file}: ${manifest.kind}/${manifest.metadata?.name}`).toBe(NAMESPACE);
      if (manifest.kind === 'ConfigMap' || manifest.kind === 'Secret') {
        for (const [key, value] of Object.entries({ ...manifest.data, ...manifest.stringData })) {
          expect(typeof value, `${file}: ${manifest.kind}/${manifest.metadata?.name} ${key}`).toBe('string');
        }
      }
    }
  });

  for (const workload of WORKLOADS) {
    describe(`${workload.name} (port ${workload.port})`, () => {
      it('has a Deployment serving its port with readiness /ready, liveness /health and a startup probe', () => {
        const deployment = getOne('Deployment', workload.name);
        expect(deployment.apiVersion).toBe('apps/v1');
        expect(matchesSelector(deployment.spec?.selector?.matchLabels, deployment.spec?.template?.metadata?.labels)).toBe(true);
        const container = containerOf(deployment, workload.name);
        expect(container.ports?.map((p) => p.containerPort)).toContain(workload.port);

        expect(container.readinessProbe?.httpGet?.path).toBe('/ready');
        expect(resolvePort(container, container.readinessProbe?.httpGet?.port)).toBe(workload.port);
        expect(container.livenessProbe?.httpGet?.path).toBe('/health');
        expect(resolvePort(container, container.livenessProbe?.httpGet?.port)).toBe(workload.port);
        expect(container.startupProbe?.httpGet?.path).toBeDefined();
        expect(resolvePort(container, container.startupProbe?.httpGet?.port)).toBe(workload.port);
      });

      it('requests and limits cpu and memory', () => {
        const container = containerOf(getOne('Deployment', workload.name), workload.name);
        for (const bound of ['requests', 'limits'] as const) {
          for (const resource of ['cpu', 'memory'] as const) {
            expect(container.resources?.[bound]?.[resource], `resources.${bound}.${resource}`).toBeDefined();
          }
        }
      });

      it('drains gracefully: terminationGracePeriodSeconds 30 and a preStop hook', () => {
        const deployment = getOne('Deployment', workload.name);
        expect(deployment.spec?.template?.spec?.terminationGracePeriodSeconds).toBe(30);
        const preStop = containerOf(deployment, workload.name).lifecycle?.preStop;
        expect(preStop?.exec?.command ?? preStop?.sleep ?? preStop?.httpGet).toBeDefined();
      });

      it('gives the container every variable it requires in production (requiredEnv, FLEET_SECRETS), from resolvable ConfigMap/Secret keys', () => {
        expect(workload.requiredEnv.length).toBeGreaterThan(0);
        const container = containerOf(getOne('Deployment', workload.name), workload.name);
        const { names, problems } = resolveEnv(container);
        expect(problems, 'unresolvable env entries').toEqual([]);
        expect(k8sRequiredEnv(workload).filter((name) => !names.has(name)), 'production variables missing from the container').toEqual([]);
        // PORT defaults to the service's own port; when set, it must match the containerPort.
        const port = container.env?.find((e) => e.name === 'PORT');
        if (port) expect(port.value).toBe(String(workload.port));
      });

      it('is exposed by a ClusterIP Service on its port, selecting its pods', () => {
        const deployment = getOne('Deployment', workload.name);
        const service = getOne('Service', workload.name);
        expect(service.spec?.type ?? 'ClusterIP').toBe('ClusterIP');
        const port = service.spec?.ports?.find((p) => p.port === workload.port);
        expect(port, `Service/${workload.name} port ${workload.port}`).toBeDefined();
        const container = containerOf(deployment, workload.name);
        expect(resolvePort(container, port?.targetPort ?? port?.port)).toBe(workload.port);
        expect(matchesSelector(service.spec?.selector, deployment.spec?.template?.metadata?.labels)).toBe(true);
      });
    });
  }

  for (const workload of WORKLOADS) {
    it(`${workload.name}: autoscales on cpu (autoscaling/v2, at least 2 replicas) and keeps one through disruptions (PDB)`, () => {
      const deployment = getOne('Deployment', workload.name);
      // The HPA owns the count: a fixed spec.replicas would fight it at every apply.
      expect(deployment.spec?.replicas, 'no spec.replicas with an HPA').toBeUndefined();
      const hpa = getOne('HorizontalPodAutoscaler', workload.name);
      expect(hpa.apiVersion).toBe('autoscaling/v2');
      expect(hpa.spec?.scaleTargetRef).toMatchObject({ kind: 'Deployment', name: workload.name });
      expect(hpa.spec?.minReplicas ?? 1).toBeGreaterThanOrEqual(2);
      expect(hpa.spec?.maxReplicas).toBeGreaterThan(hpa.spec?.minReplicas ?? 1);
      expect(hpa.spec?.metrics?.some((m) => m.type === 'Resource' && m.resource?.name === 'cpu')).toBe(true);
      const pdb = getOne('PodDisruptionBudget', workload.name);
      expect(pdb.apiVersion).toBe('policy/v1');
      expect(matchesSelector(pdb.spec?.selector?.matchLabels, deployment.spec?.template?.metadata?.labels)).toBe(true);
      expect(pdb.spec?.minAvailable ?? pdb.spec?.maxUnavailable).toBeDefined();
    });

    it(`${workload.name}: has a NetworkPolicy of its own (ingress rules for its pods beyond default-deny)`, () => {
      const labels = deployment(workload.name).spec?.template?.metadata?.labels ?? {};
      const own = resources.filter(
        (m) => m.kind === 'NetworkPolicy' && Object.keys(m.spec?.podSelector?.matchLabels ?? {}).length > 0 && selects(m.spec?.podSelector, labels) && (m.spec?.ingress ?? []).length > 0,
      );
      expect(own.map((p) => p.metadata?.name), 'NetworkPolicies selecting its pods with ingress rules').not.toEqual([]);
    });
  }

  it('protects the gateway with a PodDisruptionBudget and routes /api to it through an Ingress', () => {
    const deployment = getOne('Deployment', 'gateway');
    const pdb = getOne('PodDisruptionBudget', 'gateway');
    expect(pdb.apiVersion).toBe('policy/v1');
    expect(matchesSelector(pdb.spec?.selector?.matchLabels, deployment.spec?.template?.metadata?.labels)).toBe(true);

    const ingresses = resources.filter((m) => m.kind === 'Ingress');
    const apiPaths = ingresses.flatMap((i) => i.spec?.rules ?? []).flatMap((r) => r.http?.paths ?? []);
    const api = apiPaths.find((p) => p.path === '/api');
    expect(api?.backend?.service?.name).toBe('gateway');
    expect(api?.backend?.service?.port?.number ?? api?.backend?.service?.port?.name).toBeDefined();
  });

  it('runs NATS as a StatefulSet with JetStream on a PVC, 3 replicas and cluster routes', () => {
    const nats = resources.find((m) => m.kind === 'StatefulSet' && m.spec?.template?.spec?.containers?.some((c) => c.image?.startsWith('nats')));
    expect(nats, 'a StatefulSet running the nats image').toBeDefined();
    expect(nats?.spec?.replicas).toBe(3);
    expect(nats?.spec?.volumeClaimTemplates?.length).toBeGreaterThan(0);
    const container = nats!.spec!.template!.spec!.containers!.find((c) => c.image?.startsWith('nats'))!;
    const configMaps = (nats?.spec?.template?.spec?.volumes ?? []).flatMap((v) => (v.configMap ? [v.configMap.name] : []));
    const config = configMaps.map((name) => Object.values(getOne('ConfigMap', name).data ?? {}).join('\n')).join('\n');
    const flags = [...(container.command ?? []), ...(container.args ?? [])];
    expect(flags.includes('-js') || flags.includes('--jetstream') || /^\s*jetstream\s*[{:]/m.test(config)).toBe(true);
    expect(config).toMatch(/routes/);
    expect(container.volumeMounts?.some((m) => nats?.spec?.volumeClaimTemplates?.some((t) => t.metadata?.name === m.name))).toBe(true);
    expect(getOne('Service', 'nats').spec?.ports?.some((p) => p.port === 4222)).toBe(true);
  });

  it('runs MinIO as a StatefulSet with a PVC', () => {
    const minio = getOne('StatefulSet', 'minio');
    expect(minio.spec?.volumeClaimTemplates?.length).toBeGreaterThan(0);
    expect(containerOf(minio, 'minio').image).toMatch(/minio/);
    expect(getOne('Service', 'minio').spec?.ports?.some((p) => p.port === 9000)).toBe(true);
  });

  it('runs PostgreSQL as a StatefulSet with a PVC whose init script creates every service database and its own role', () => {
    const postgres = getOne('StatefulSet', 'postgres');
    expect(postgres.spec?.volumeClaimTemplates?.length).toBeGreaterThan(0);
    const configMaps = (postgres.spec?.template?.spec?.volumes ?? []).flatMap((v) => (v.configMap ? [v.configMap.name] : []));
    const init = configMaps.map((name) => Object.values(getOne('ConfigMap', name).data ?? {}).join('\n')).join('\n');
    // One role per service, owner of its own database only (init.sh loops over the services).
    expect(init).toContain('CREATE ROLE :"role" LOGIN PASSWORD');
    expect(init).toContain('CREATE DATABASE :"role" OWNER :"role"');
    expect(init).toContain('REVOKE CONNECT ON DATABASE :"role" FROM PUBLIC');
    const loop = /for service in ([a-z_ ]+); do/.exec(init)?.[1]?.trim().split(/\s+/) ?? [];
    expect(loop.map((s) => `msp_${s}`).sort()).toEqual([...DATABASES].sort());
    const container = containerOf(postgres, 'postgres');
    for (const service of SERVICES) {
      const variable = `${service.name.toUpperCase().replace(/-/g, '_')}_DB_PASSWORD`;
      expect(container.env?.find((e) => e.name === variable)?.valueFrom?.secretKeyRef, variable).toEqual({ name: 'msp-secrets', key: variable });
    }
    expect(getOne('Service', 'postgres').spec?.ports?.some((p) => p.port === 5432)).toBe(true);
  });

  it('runs Redis behind a Service on 6379', () => {
    expect(resources.some((m) => (m.kind === 'Deployment' || m.kind === 'StatefulSet') && m.metadata?.name === 'redis')).toBe(true);
    expect(getOne('Service', 'redis').spec?.ports?.some((p) => p.port === 6379)).toBe(true);
  });
});

describe('docker-compose.yml', () => {
  it('parses as a single YAML document with services', () => {
    expect(composeProblems).toEqual([]);
    expect(compose.services).toBeDefined();
  });

  it('runs postgres, nats (JetStream, on a volume), redis and minio with healthchecks', () => {
    for (const name of INFRASTRUCTURE) {
      const service = compose.services?.[name];
      expect(service, name).toBeDefined();
      expect(service?.healthcheck?.test, `${name} healthcheck`).toBeDefined();
    }
    const nats = compose.services?.nats;
    const natsCommand = Array.isArray(nats?.command) ? nats.command : (nats?.command ?? '').split(/\s+/);
    expect(natsCommand.includes('-js') || natsCommand.includes('--jetstream')).toBe(true);
    expect(nats?.volumes?.length).toBeGreaterThan(0);
    const postgresVolumes = (compose.services?.postgres?.volumes ?? []).map((v) => (typeof v === 'string' ? v : `${v.source}:${v.target}`));
    expect(postgresVolumes.some((v) => v.includes('infra/postgres/init.sql') && v.includes('/docker-entrypoint-initdb.d'))).toBe(true);
  });

  it('creates every service database, owned by its own role, in infra/postgres/init.sql', () => {
    const init = readFileSync(path.join(ROOT, 'infra/postgres/init.sql'), 'utf8');
    for (const database of DATABASES) {
      expect(init).toContain(`CREATE ROLE ${database} LOGIN PASSWORD`);
      expect(init).toContain(`CREATE DATABASE ${database} OWNER ${database};`);
      expect(init).toContain(`GRANT CONNECT ON DATABASE ${database} TO ${database};`);
    }
    expect(init).toMatch(/REVOKE CONNECT ON DATABASE [^;]* FROM PUBLIC;/);
  });

  for (const workload of WORKLOADS) {
    it(`builds ${workload.name} from the one Dockerfile (WORKLOAD=${workload.dir}) with a healthcheck, its dependencies and its requiredEnv`, () => {
      const service = compose.services?.[workload.name];
      expect(service, workload.name).toBeDefined();
      const build = typeof service?.build === 'string' ? { context: service.build } : service?.build;
      expect(build?.dockerfile).toBe('Dockerfile');
      expect(build?.context).toBe('.');
      expect(build?.args?.WORKLOAD).toBe(workload.dir);
      // ffmpeg only where it runs.
      expect((build?.args?.SYSTEM_PACKAGES ?? '').includes('ffmpeg')).toBe(workload.name === 'media-processing');
      expect(existsSync(path.join(ROOT, 'Dockerfile'))).toBe(true);
      expect(service?.healthcheck?.test, 'healthcheck').toBeDefined();
      expect(service?.healthcheck?.disable).not.toBe(true);

      const deps = composeDependencies(service!);
      const expected = workload === GATEWAY ? ['redis', ...SERVICES.map((s) => s.name)] : [...INFRASTRUCTURE];
      for (const dependency of expected) expect(deps.get(dependency), `depends_on ${dependency}`).toBe('service_healthy');

      const env = composeEnvironment(service!);
      expect(env.get('NODE_ENV')).toBe('production');
      if (workload !== GATEWAY) {
        // Migrations run once, in <name>-migrate, with the same image; never in the serving container.
        expect(env.get('DB_AUTO_MIGRATE')).toBe('false');
        expect(deps.get(`${workload.name}-migrate`), 'depends_on its migration').toBe('service_completed_successfully');
        const migrate = compose.services?.[`${workload.name}-migrate`];
        expect(migrate?.image).toBe(service?.image);
        expect(migrate?.command).toEqual(['node', 'dist/migrate.js']);
        expect(composeEnvironment(migrate ?? {}).get('DATABASE_URL')).toBe(env.get('DATABASE_URL'));
      }
      expect(productionEnv(workload).filter((name) => !env.get(name)), 'production variables missing from environment').toEqual([]);
      expect(env.get('PORT')).toBe(String(workload.port));
    });
  }

  it('publishes the gateway on 8080 and no other process of the fleet', () => {
    const published = (service: ComposeService | undefined) =>
      (service?.ports ?? []).map((p) => (typeof p === 'object' ? String(p.published) : String(p).split(':').slice(-2, -1)[0] ?? String(p)));
    expect(published(compose.services?.gateway)).toContain('8080');
    for (const service of SERVICES) expect(compose.services?.[service.name]?.ports ?? []).toEqual([]);
  });
});

describe('Dockerfile (one for the eight workloads)', () => {
  const dockerfile = readFileSync(path.join(ROOT, 'Dockerfile'), 'utf8');
  const froms = [...dockerfile.matchAll(/^FROM\s+(\S+)/gm)].map((m) => m[1]!);
  const args = Object.fromEntries([...dockerfile.matchAll(/^ARG\s+(\w+)(?:=(\S*))?/gm)].map((m) => [m[1]!, m[2] ?? '']));

  it('is multi-stage on a supported Node LTS (22 or 24) slim image', () => {
    expect(froms.length).toBeGreaterThanOrEqual(2);
    const image = args.NODE_IMAGE ?? '';
    expect(image).toMatch(/^node:(22|24)(\.\d+)*-[a-z]+-slim$/);
    for (const from of froms) expect(from).toBe('${NODE_IMAGE}');
  });

  it('installs from the lockfile, compiles the workload and copies only `pnpm deploy --prod` output into the image', () => {
    expect(dockerfile).toMatch(/pnpm install --frozen-lockfile\b.*--filter "\$PKG\.\.\."/);
    expect(dockerfile).toMatch(/pnpm --filter "\$PKG" run build/);
    expect(dockerfile).toMatch(/pnpm --filter "\$PKG" deploy --prod\b/);
    const runtime = dockerfile.slice(dockerfile.lastIndexOf('\nFROM '));
    expect(runtime).toMatch(/^COPY --from=build\b.*\/out \/app$/m);
    expect(runtime).not.toMatch(/tsx/);
    expect(runtime).toMatch(/^CMD \["node",.*"dist\/server\.js"\]$/m);
  });

  it('runs as a numeric non-root user and installs system packages only when asked (ffmpeg for media-processing)', () => {
    const users = [...dockerfile.matchAll(/^USER\s+(\S+)/gm)].map((m) => m[1]);
    expect(users.at(-1)).toMatch(/^[1-9]\d*:[1-9]\d*$/);
    expect(args.SYSTEM_PACKAGES).toBe('""');
    expect(dockerfile).not.toMatch(/apt-get install[^\n]*\bffmpeg\b/);
  });

  it('replaces the per-workload Dockerfiles', () => {
    for (const workload of WORKLOADS) expect(existsSync(path.join(ROOT, workload.dir, 'Dockerfile')), workload.dir).toBe(false);
  });

  for (const workload of WORKLOADS) {
    it(`${workload.name}: the k8s Deployment runs the image's command (no tsx) and, with a database, migrates in an init container`, () => {
      const deployment = getOne('Deployment', workload.name);
      const container = containerOf(deployment, workload.name);
      expect(container.image).toBe(`msp/${workload.name}:latest`);
      expect([...(container.command ?? []), ...(container.args ?? [])].join(' ')).not.toMatch(/tsx/);
      if (workload === GATEWAY) return;
      const init = deployment.spec?.template?.spec?.initContainers ?? [];
      const migrate = init.find((c) => c.name === 'migrate');
      expect(migrate, 'an init container named migrate').toBeDefined();
      expect(migrate?.image).toBe(container.image);
      expect(migrate?.command).toEqual(['node', 'dist/migrate.js']);
      expect(migrate?.resources?.limits?.cpu, 'migrate cpu limit').toMatch(/^\d+(\.\d+)?m?$/);
      expect(migrate?.resources?.limits?.memory, 'migrate memory limit').toMatch(/^\d+(Mi|Gi)$/);
      const dbUrl = (c: Container | undefined) => c?.env?.find((e) => e.name === 'DATABASE_URL')?.valueFrom?.secretKeyRef;
      expect(dbUrl(migrate)).toEqual(dbUrl(container));
      const { names } = resolveEnv(container);
      expect(names.has('DB_AUTO_MIGRATE')).toBe(true);
      expect(keysOf('ConfigMap', 'msp-config')).toBeDefined();
      expect(findAll('ConfigMap', 'msp-config')[0]?.data?.DB_AUTO_MIGRATE).toBe('false');
    });
  }
});

// --- Trust secrets ------------------------------------------------------------------------------

describe('trust between gateway and services (secrets)', () => {
  const secretKeys = keysOf('Secret', 'msp-secrets') ?? new Set<string>();
  const secret = findAll('Secret', 'msp-secrets')[0];
  const secretValues = { ...secret?.data, ...secret?.stringData } as Record<string, unknown>;

  it('declares the fleet secrets in the config shapes (FLEET_SECRETS of packages/config)', () => {
    for (const service of SERVICES) {
      for (const name of SERVICE_TRUST_SECRETS) {
        expect(FLEET_SECRETS, name).toContain(name);
        expect(productionEnv(service), `${service.name} requires ${name} in production`).toContain(name);
      }
      for (const name of GATEWAY_TRUST_SECRETS) expect(productionEnv(service), `${service.name} must not need ${name}`).not.toContain(name);
    }
    for (const name of GATEWAY_TRUST_SECRETS) expect(productionEnv(GATEWAY), `gateway requires ${name} in production`).toContain(name);
    for (const name of SERVICE_TRUST_SECRETS) expect(productionEnv(GATEWAY), `gateway must not need ${name}`).not.toContain(name);
    expect(k8sRequiredEnv(GATEWAY)).toContain('TRUST_PROXY');
  });

  it('keeps CHANGE_ME placeholders for every trust key in k8s/secrets.yaml (real keys come from `pnpm keys:derive`)', () => {
    const trustKeys = ['GATEWAY_SIGNING_KEY', 'METRICS_TOKEN', 'INTERNAL_SERVICE_KEY', ...SERVICES.map((s) => assertionSecretKey(s.name))];
    for (const key of trustKeys) {
      expect(secretKeys.has(key), `msp-secrets has ${key}`).toBe(true);
      expect(String(secretValues[key]), key).toMatch(/^CHANGE_ME/);
    }
    // The script prints exactly the assertion keys the Secret holds.
    expect(Object.keys(deriveFleetKeys('x'.repeat(32))).sort()).toEqual(SERVICES.map((s) => assertionSecretKey(s.name)).sort());
  });

  it('`pnpm keys:derive <master>` prints Secret stringData with the derived assertion keys', () => {
    const master = 'a-master-key-for-the-infra-test-only';
    const output = execFileSync(process.execPath, ['--import', 'tsx', 'scripts/derive-keys.ts', master], { cwd: ROOT, encoding: 'utf8' });
    const docs = parseAllDocuments(`stringData:\n${output}`);
    expect(docs.flatMap((d) => d.errors)).toEqual([]);
    const printed = (docs[0]?.toJS() as { stringData?: Record<string, unknown> }).stringData ?? {};
    expect(printed.GATEWAY_SIGNING_KEY).toBe(master);
    for (const service of SERVICES) expect(printed[assertionSecretKey(service.name)], service.name).toBe(deriveAssertionKey(master, service.name));
    for (const key of ['INTERNAL_SERVICE_KEY', 'METRICS_TOKEN']) expect(String(printed[key]).length, key).toBeGreaterThanOrEqual(32);
    for (const key of Object.keys(printed)) expect(secretKeys.has(key), `msp-secrets has ${key}`).toBe(true);
  });

  it('never hands msp-secrets whole to a container (envFrom secretRef)', () => {
    for (const workload of WORKLOADS) {
      const container = containerOf(getOne('Deployment', workload.name), workload.name);
      expect(container.envFrom?.filter((e) => e.secretRef) ?? [], workload.name).toEqual([]);
    }
  });

  for (const service of SERVICES) {
    it(`${service.name} gets its own assertion key and the internal key from msp-secrets, never the master key`, () => {
      const container = containerOf(getOne('Deployment', service.name), service.name);
      const ref = (name: string) => container.env?.find((e) => e.name === name)?.valueFrom?.secretKeyRef;
      expect(ref('GATEWAY_ASSERTION_KEY')).toEqual({ name: 'msp-secrets', key: assertionSecretKey(service.name) });
      expect(ref('INTERNAL_SERVICE_KEY')).toEqual({ name: 'msp-secrets', key: 'INTERNAL_SERVICE_KEY' });
      const { names } = resolveEnv(container);
      for (const name of GATEWAY_TRUST_SECRETS) expect(names.has(name), `${service.name} must not receive ${name}`).toBe(false);
      const foreign = (container.env ?? [])
        .map((e) => e.valueFrom?.secretKeyRef?.key)
        .filter((key) => key !== undefined && /_GATEWAY_ASSERTION_KEY$/.test(key) && key !== assertionSecretKey(service.name));
      expect(foreign, 'assertion keys of other services').toEqual([]);
    });
  }

  it('gives the gateway its master key and metrics token from msp-secrets and TRUST_PROXY as a list of ranges', () => {
    const container = containerOf(getOne('Deployment', 'gateway'), 'gateway');
    for (const name of GATEWAY_TRUST_SECRETS) {
      expect(container.env?.find((e) => e.name === name)?.valueFrom?.secretKeyRef, name).toEqual({ name: 'msp-secrets', key: name });
    }
    const { names } = resolveEnv(container);
    for (const name of SERVICE_TRUST_SECRETS) expect(names.has(name), `gateway must not receive ${name}`).toBe(false);
    const trustProxy = container.env?.find((e) => e.name === 'TRUST_PROXY')?.value;
    expect(typeof trustProxy, 'TRUST_PROXY is a literal value').toBe('string');
    const ranges = String(trustProxy).split(',').map((r) => r.trim());
    expect(ranges.length).toBeGreaterThan(0);
    // Addresses or CIDRs only: `true` would believe any client's X-Forwarded-For.
    for (const range of ranges) expect(range, 'TRUST_PROXY entry').toMatch(/^(\d{1,3}(\.\d{1,3}){3}|[0-9a-f:]+)(\/\d{1,3})?$/i);
  });
});

describe('docker-compose.yml trust keys', () => {
  const gatewayEnv = composeEnvironment(compose.services?.gateway ?? {});
  const master = gatewayEnv.get('GATEWAY_SIGNING_KEY') ?? '';

  it('gives the gateway a master key, a metrics token and no proxy trust', () => {
    expect(master.length).toBeGreaterThanOrEqual(16);
    expect((gatewayEnv.get('METRICS_TOKEN') ?? '').length).toBeGreaterThanOrEqual(16);
    expect(gatewayEnv.get('TRUST_PROXY') ?? 'false').toBe('false');
  });

  it('gives every service deriveAssertionKey(compose master, service) and one shared internal key', () => {
    const internal = new Set<string>();
    for (const service of SERVICES) {
      const env = composeEnvironment(compose.services?.[service.name] ?? {});
      expect(env.get('GATEWAY_ASSERTION_KEY'), service.name).toBe(deriveAssertionKey(master, service.name));
      expect(env.has('GATEWAY_SIGNING_KEY'), `${service.name} must not get the master key`).toBe(false);
      internal.add(env.get('INTERNAL_SERVICE_KEY') ?? '');
    }
    expect(internal.size).toBe(1);
    expect([...internal][0]!.length).toBeGreaterThanOrEqual(16);
  });
});

// --- NetworkPolicies ------------------------------------------------------------------------------
// A small model of NetworkPolicy semantics (networking.k8s.io/v1): a pod is isolated for a
// direction when some policy of its namespace selects it with that policy type; traffic then needs
// a rule of one of those policies. A connection needs the client's egress AND the server's ingress.
// Only matchLabels selectors and numeric ports are modelled (the test rejects anything else), and
// ipBlock peers are matched against addresses outside the cluster only.

/** A pod (namespace + labels) or an address outside the cluster. */
type Endpoint = { namespace: string; labels: Record<string, string> } | { ip: string };

const policies = resources.filter((m) => m.kind === 'NetworkPolicy');

function selects(selector: LabelSelector | undefined, labels: Record<string, string>): boolean {
  if (!selector) return true;
  return Object.entries(selector.matchLabels ?? {}).every(([key, value]) => labels[key] === value);
}

function ipv4(address: string): number | undefined {
  const parts = address.split('.');
  if (parts.length !== 4 || parts.some((p) => !/^\d{1,3}$/.test(p) || Number(p) > 255)) return undefined;
  return parts.reduce((n, p) => n * 256 + Number(p), 0);
}

/** IPv4 only; an IPv6 range never contains an IPv4 address. */
function inCidr(ip: string, cidr: string): boolean {
  const [base = '', bits = '32'] = cidr.split('/');
  const address = ipv4(ip);
  const network = ipv4(base);
  if (address === undefined || network === undefined) return false;
  const size = 2 ** (32 - Number(bits));
  return Math.floor(address / size) === Math.floor(network / size);
}

function peerMatches(peer: PolicyPeer, other: Endpoint, policyNamespace: string): boolean {
  if ('ip' in other) {
    return peer.ipBlock !== undefined && inCidr(other.ip, peer.ipBlock.cidr) && !(peer.ipBlock.except ?? []).some((c) => inCidr(other.ip, c));
  }
  if (peer.ipBlock) return false;
  const namespaceLabels = { 'kubernetes.io/metadata.name': other.namespace };
  if (peer.namespaceSelector) return selects(peer.namespaceSelector, namespaceLabels) && selects(peer.podSelector, other.labels);
  return other.namespace === policyNamespace && selects(peer.podSelector, other.labels);
}

function portMatches(rule: PolicyRule, port: number, protocol: string): boolean {
  if (!rule.ports || rule.ports.length === 0) return true;
  return rule.ports.some((p) => (p.protocol ?? 'TCP') === protocol && (p.port === undefined || p.port === port || (typeof p.port === 'number' && p.endPort !== undefined && port >= p.port && port <= p.endPort)));
}

function policyTypes(policy: Manifest): string[] {
  return policy.spec?.policyTypes ?? ['Ingress', ...(policy.spec?.egress ? ['Egress'] : [])];
}

/** Whether `pod` may send (egress) to / receive (ingress) from `other` on port/protocol. */
function directionAllows(direction: 'Ingress' | 'Egress', pod: Endpoint, other: Endpoint, port: number, protocol: string): boolean {
  if ('ip' in pod) return true; // outside the cluster: not governed by these policies
  const applying = policies.filter(
    (p) => (p.metadata?.namespace ?? NAMESPACE) === pod.namespace && selects(p.spec?.podSelector, pod.labels) && policyTypes(p).includes(direction),
  );
  if (applying.length === 0) return true;
  return applying.some((policy) =>
    ((direction === 'Ingress' ? policy.spec?.ingress : policy.spec?.egress) ?? []).some((rule) => {
      const peers = direction === 'Ingress' ? rule.from : rule.to;
      const peerOk = !peers || peers.length === 0 || peers.some((peer) => peerMatches(peer, other, policy.metadata?.namespace ?? NAMESPACE));
      return peerOk && portMatches(rule, port, protocol);
    }),
  );
}

function allowed(from: Endpoint, to: Endpoint, port: number, protocol = 'TCP'): boolean {
  return directionAllows('Egress', from, to, port, protocol) && directionAllows('Ingress', to, from, port, protocol);
}

/** The pods of a Deployment or StatefulSet under k8s/. */
function podOf(name: string): Endpoint {
  const workload = resources.find((m) => (m.kind === 'Deployment' || m.kind === 'StatefulSet') && m.metadata?.name === name);
  expect(workload, `a Deployment or StatefulSet named ${name}`).toBeDefined();
  return { namespace: workload?.metadata?.namespace ?? NAMESPACE, labels: workload?.spec?.template?.metadata?.labels ?? {} };
}

const INGRESS_CONTROLLER: Endpoint = { namespace: 'ingress-nginx', labels: { 'app.kubernetes.io/name': 'ingress-nginx' } };
const PROMETHEUS: Endpoint = { namespace: 'monitoring', labels: { 'app.kubernetes.io/name': 'prometheus' } };
const KUBE_DNS: Endpoint = { namespace: 'kube-system', labels: { 'k8s-app': 'kube-dns' } };
/** Anything else: a debugging pod in the namespace, a pod of another namespace. */
const STRANGERS: Endpoint[] = [
  { namespace: NAMESPACE, labels: { run: 'debug' } },
  { namespace: 'default', labels: { 'app.kubernetes.io/name': 'gateway' } },
];
const INTERNET: Endpoint = { ip: '203.0.113.10' };
const CLOUD_METADATA: Endpoint = { ip: '169.254.169.254' };
const INFRA_PORTS: Record<(typeof INFRASTRUCTURE)[number], number> = { postgres: 5432, nats: 4222, redis: 6379, minio: 9000 };

/**
 * Service-to-service calls (caller -> callee), each through a client in services/<caller>/src
 * reading the callee's *_URL setting. The test below finds those reads in the code and fails when
 * this table (and so network-policies.yaml) misses one or lists one the code no longer makes.
 */
const SERVICE_EDGES: readonly (readonly [string, string])[] = [
  ['catalog', 'media-processing'], // /internal/media/probe
  ['social', 'catalog'], // /internal/tracks
  ['identity', 'social'], // /internal/relationships
  ['identity', 'billing'], // /internal/subscriptions/{userId}
  ['messaging', 'catalog'], // /internal/tracks, /internal/playlists
  ['notification', 'identity'], // JWKS of STOMP CONNECT tokens (JWKS_URL defaults to IDENTITY_URL)
];
/** Processes that talk to the internet (443 unless stated): Google OAuth and SMTP, web push, Stripe. */
const INTERNET_EGRESS: Record<string, number[]> = { identity: [443, 587, 465], notification: [443], billing: [443] };

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    // src/dev holds development stand-ins (e.g. billing's Stripe stand-in), never run in a cluster.
    if (entry.isDirectory()) return entry.name === 'dev' ? [] : sourceFiles(full);
    return /\.ts$/.test(entry.name) && !/\.test\.ts$/.test(entry.name) ? [full] : [];
  });
}

/** caller -> callee for every `<x>.<CALLEE>_URL` read in a service's source. */
function edgesInCode(): string[] {
  const byVariable = new Map(SERVICES.map((s) => [`${s.name.toUpperCase().replace(/-/g, '_')}_URL`, s.name]));
  const edges = new Set<string>();
  for (const service of SERVICES) {
    for (const file of sourceFiles(path.join(ROOT, service.dir, 'src'))) {
      for (const match of readFileSync(file, 'utf8').matchAll(/\.([A-Z_]+_URL)\b/g)) {
        const callee = byVariable.get(match[1]!);
        if (callee && callee !== service.name) edges.add(`${service.name} -> ${callee}`);
      }
    }
  }
  return [...edges].sort();
}

describe('k8s NetworkPolicies', () => {
  it('uses only what the model understands: matchLabels selectors, numeric ports, namespace music', () => {
    expect(policies.length).toBeGreaterThan(0);
    for (const policy of policies) {
      const name = policy.metadata?.name;
      expect(policy.apiVersion, `${name}`).toBe('networking.k8s.io/v1');
      expect(policy.metadata?.namespace, `${name}`).toBe(NAMESPACE);
      for (const type of policy.spec?.policyTypes ?? []) expect(['Ingress', 'Egress'], `${name} policyTypes`).toContain(type);
      const selectors = [policy.spec?.podSelector];
      for (const rule of [...(policy.spec?.ingress ?? []), ...(policy.spec?.egress ?? [])]) {
        for (const peer of [...(rule.from ?? []), ...(rule.to ?? [])]) selectors.push(peer.podSelector, peer.namespaceSelector);
        for (const port of rule.ports ?? []) {
          expect(typeof port.port, `${name}: numeric ports`).toBe('number');
          expect(['TCP', 'UDP', undefined], `${name}: protocol`).toContain(port.protocol);
        }
      }
      expect(policy.spec?.podSelector, `${name}: spec.podSelector`).toBeDefined();
      for (const selector of selectors) expect(selector?.matchExpressions ?? [], `${name}: matchExpressions`).toEqual([]);
    }
  });

  it('denies all ingress and egress of the namespace by default', () => {
    const defaultDeny = policies.filter(
      (p) =>
        Object.keys(p.spec?.podSelector?.matchLabels ?? {}).length === 0 &&
        (p.spec?.podSelector?.matchExpressions ?? []).length === 0 &&
        (p.spec?.policyTypes ?? []).includes('Ingress') &&
        (p.spec?.policyTypes ?? []).includes('Egress') &&
        (p.spec?.ingress ?? []).length === 0 &&
        (p.spec?.egress ?? []).length === 0,
    );
    expect(defaultDeny.map((p) => p.metadata?.name), 'a policy selecting every pod, both types, no rules').toHaveLength(1);
    // Whatever a pod of the namespace is, it is isolated both ways.
    for (const stranger of STRANGERS.filter((s) => 'namespace' in s && s.namespace === NAMESPACE)) {
      for (const workload of WORKLOADS) {
        expect(allowed(stranger, podOf(workload.name), workload.port), `stranger -> ${workload.name}`).toBe(false);
        expect(allowed(podOf(workload.name), stranger, 8080), `${workload.name} -> stranger`).toBe(false);
      }
      expect(allowed(stranger, INTERNET, 443), 'stranger -> internet').toBe(false);
    }
  });

  it('lets every pod resolve names with kube-dns (UDP and TCP 53) and nothing else of kube-system', () => {
    for (const name of [...WORKLOADS.map((w) => w.name), ...INFRASTRUCTURE]) {
      expect(allowed(podOf(name), KUBE_DNS, 53, 'UDP'), `${name} -> dns/udp`).toBe(true);
      expect(allowed(podOf(name), KUBE_DNS, 53, 'TCP'), `${name} -> dns/tcp`).toBe(true);
      expect(allowed(podOf(name), KUBE_DNS, 443), `${name} -> kube-system:443`).toBe(false);
    }
  });

  it('lets the ingress controller reach the gateway (8080), MinIO (the media Ingress) and no other process', () => {
    for (const workload of WORKLOADS) {
      expect(allowed(INGRESS_CONTROLLER, podOf(workload.name), workload.port), `ingress controller -> ${workload.name}`).toBe(workload === GATEWAY);
    }
    for (const name of INFRASTRUCTURE) expect(allowed(INGRESS_CONTROLLER, podOf(name), INFRA_PORTS[name]), `ingress controller -> ${name}`).toBe(name === 'minio');
    for (const stranger of STRANGERS) expect(allowed(stranger, podOf('gateway'), 8080), 'stranger -> gateway').toBe(false);
  });

  it('lets Prometheus scrape every process on its own port', () => {
    for (const workload of WORKLOADS) expect(allowed(PROMETHEUS, podOf(workload.name), workload.port), `prometheus -> ${workload.name}`).toBe(true);
  });

  it('finds in the code exactly the service-to-service edges of its table', () => {
    expect(edgesInCode()).toEqual(SERVICE_EDGES.map(([from, to]) => `${from} -> ${to}`).sort());
  });

  it('allows gateway -> every service and each edge of the table, and no other path between processes', () => {
    const edges = new Set(SERVICE_EDGES.map(([from, to]) => `${from} -> ${to}`));
    for (const from of WORKLOADS) {
      for (const to of WORKLOADS) {
        if (from === to) continue;
        const expected = from === GATEWAY || edges.has(`${from.name} -> ${to.name}`);
        expect(allowed(podOf(from.name), podOf(to.name), to.port), `${from.name} -> ${to.name}:${to.port}`).toBe(expected);
      }
    }
  });

  it('allows services -> postgres, nats, redis, minio; gateway -> redis; nothing else reaches them', () => {
    for (const name of INFRASTRUCTURE) {
      const port = INFRA_PORTS[name];
      for (const service of SERVICES) expect(allowed(podOf(service.name), podOf(name), port), `${service.name} -> ${name}:${port}`).toBe(true);
      expect(allowed(podOf('gateway'), podOf(name), port), `gateway -> ${name}:${port}`).toBe(name === 'redis');
      for (const stranger of STRANGERS) expect(allowed(stranger, podOf(name), port), `stranger -> ${name}`).toBe(false);
    }
    expect(allowed(podOf('nats'), podOf('nats'), 6222), 'nats cluster routes').toBe(true);
    expect(allowed(podOf('catalog'), podOf('nats'), 6222), 'services must not join the NATS cluster').toBe(false);
  });

  it('lets only identity, notification and billing reach the internet, on their ports, never the cloud metadata address', () => {
    for (const name of [...WORKLOADS.map((w) => w.name), ...INFRASTRUCTURE]) {
      for (const port of [80, 443, 465, 587]) {
        expect(allowed(podOf(name), INTERNET, port), `${name} -> internet:${port}`).toBe((INTERNET_EGRESS[name] ?? []).includes(port));
        expect(allowed(podOf(name), CLOUD_METADATA, port), `${name} -> 169.254.169.254:${port}`).toBe(false);
      }
    }
  });
});

// --- Kubernetes schemas (offline) and operations ---------------------------------------------------

/** Validates against the Kubernetes OpenAPI schemas bundled in kubernetes-models (no network). */
async function schemaProblems(manifest: Manifest): Promise<string[]> {
  const group = manifest.apiVersion ?? '';
  const kind = manifest.kind ?? '';
  let models: Record<string, unknown>;
  try {
    models = (await import(`kubernetes-models/${group}`)) as Record<string, unknown>;
  } catch {
    return [`no schema for apiVersion ${group}`];
  }
  const Model = models[kind] as (new (data: unknown) => { validate(): void }) | undefined;
  if (!Model) return [`no schema for ${group} ${kind}`];
  try {
    new Model(manifest).validate();
    return [];
  } catch (err) {
    return [String((err as Error).message).slice(0, 500)];
  }
}

describe('Kubernetes schemas', () => {
  it('validates every object under k8s/ against the Kubernetes API schemas (kubernetes-models, offline)', async () => {
    const problems: string[] = [];
    for (const { file, manifest } of k8s.documents) {
      if (manifest.kind === 'Kustomization') continue;
      for (const problem of await schemaProblems(manifest)) problems.push(`${file} ${manifest.kind}/${manifest.metadata?.name}: ${problem}`);
    }
    expect(problems).toEqual([]);
  });

  it('rejects a broken object (the validator is really on)', async () => {
    const broken = structuredClone(getOne('Deployment', 'catalog')) as Manifest;
    (broken.spec!.template!.spec!.containers![0]!.ports![0] as { containerPort: unknown }).containerPort = 'http';
    expect(await schemaProblems(broken)).not.toEqual([]);
    expect(await schemaProblems({ apiVersion: 'policy/v1', kind: 'PodDisruptionBudget', metadata: { name: 'x' }, spec: { minAvailable: { nope: 1 } as never } })).not.toEqual([]);
  });
});

describe('operations', () => {
  const config = findAll('ConfigMap', 'msp-config')[0]?.data ?? {};
  const secret = findAll('Secret', 'msp-secrets')[0];
  const secretValues = { ...secret?.data, ...secret?.stringData } as Record<string, string>;
  const upperName = (name: string) => name.toUpperCase().replace(/-/g, '_');

  it('lets uploads through the ingress: body limit above AUDIO_MAX_BYTES, no request buffering, timeouts above UPLOAD_TIMEOUT_MS, HTTP/1.1 for websockets', () => {
    const annotations = getOne('Ingress', 'gateway').metadata?.annotations ?? {};
    const size = /^(\d+)([kmg]?)$/i.exec(annotations['nginx.ingress.kubernetes.io/proxy-body-size'] ?? '');
    expect(size, 'nginx.ingress.kubernetes.io/proxy-body-size').not.toBeNull();
    const unit = { '': 1, k: 1024, m: 1024 ** 2, g: 1024 ** 3 }[(size![2] ?? '').toLowerCase() as '' | 'k' | 'm' | 'g'];
    const gatewayDefaults = loadConfigDefaults();
    expect(Number(size![1]) * unit).toBeGreaterThan(gatewayDefaults.AUDIO_MAX_BYTES);
    expect(annotations['nginx.ingress.kubernetes.io/proxy-request-buffering']).toBe('off');
    expect(annotations['nginx.ingress.kubernetes.io/proxy-http-version']).toBe('1.1');
    for (const key of ['proxy-read-timeout', 'proxy-send-timeout']) {
      expect(Number(annotations[`nginx.ingress.kubernetes.io/${key}`]) * 1000, key).toBeGreaterThanOrEqual(gatewayDefaults.UPLOAD_TIMEOUT_MS);
    }
  });

  it('replicates the JetStream streams as many times as NATS has nodes', () => {
    const nats = getOne('StatefulSet', 'nats');
    expect(config.NATS_STREAM_REPLICAS).toBe(String(nats.spec?.replicas));
    for (const service of SERVICES) expect(resolveEnv(containerOf(getOne('Deployment', service.name), service.name)).names.has('NATS_STREAM_REPLICAS')).toBe(true);
  });

  it('gives every service its own database role and MinIO user, never the administrator accounts', () => {
    const users = new Set<string>();
    const accessKeys = new Set<string>();
    for (const service of SERVICES) {
      const container = containerOf(getOne('Deployment', service.name), service.name);
      const ref = (name: string) => container.env?.find((e) => e.name === name)?.valueFrom?.secretKeyRef?.key ?? '';
      const url = new URL(secretValues[ref('DATABASE_URL')] ?? 'postgresql://missing@x/y');
      const database = `msp_${service.name.replace(/-/g, '_')}`;
      expect(url.pathname, service.name).toBe(`/${database}`);
      expect(url.username, `${service.name} connects as its own role`).toBe(database);
      expect(decodeURIComponent(url.password)).toBe(secretValues[`${upperName(service.name)}_DB_PASSWORD`]);
      users.add(url.username);
      expect(ref('S3_ACCESS_KEY')).toBe(`${upperName(service.name)}_S3_ACCESS_KEY`);
      expect(ref('S3_SECRET_KEY')).toBe(`${upperName(service.name)}_S3_SECRET_KEY`);
      expect(secretValues[ref('S3_ACCESS_KEY')]).toBe(`msp-${service.name}`);
      accessKeys.add(secretValues[ref('S3_ACCESS_KEY')] ?? '');
      const { names } = resolveEnv(container);
      for (const admin of ['POSTGRES_USER', 'POSTGRES_PASSWORD', 'MINIO_ROOT_USER', 'MINIO_ROOT_PASSWORD']) expect(names.has(admin), `${service.name}: ${admin}`).toBe(false);
    }
    expect(users.size).toBe(SERVICES.length);
    expect(accessKeys.size).toBe(SERVICES.length);
    // The minio-setup Job creates those users with the script compose runs.
    const script = findAll('ConfigMap', 'minio-setup')[0]?.data?.['setup.sh'];
    expect(script).toBe(readFileSync(path.join(ROOT, 'infra/minio/setup.sh'), 'utf8'));
    const job = containerOf(getOne('Job', 'minio-setup'), 'mc');
    for (const service of SERVICES) expect(resolveEnv(job).names.has(`${upperName(service.name)}_S3_SECRET_KEY`)).toBe(true);
    expect(allowed(podOfJob('minio-setup'), podOf('minio'), 9000), 'minio-setup -> minio').toBe(true);
  });

  it('gives compose services their own database role and MinIO user too', () => {
    const users = new Set<string>();
    for (const service of SERVICES) {
      const env = composeEnvironment(compose.services?.[service.name] ?? {});
      users.add(new URL(env.get('DATABASE_URL') ?? 'postgresql://x@y/z').username);
      expect(env.get('S3_ACCESS_KEY')).toBe(`msp-${service.name}`);
    }
    expect([...users].sort()).toEqual([...DATABASES].sort());
    expect(compose.services?.['minio-setup']).toBeDefined();
  });

  it('sends mail, traces and admin accounts where an operator can see them (compose: Mailpit, collector, Jaeger)', () => {
    const identity = composeEnvironment(compose.services?.identity ?? {});
    expect(identity.get('SMTP_URL')).toMatch(/^smtp:\/\/mailpit:/);
    for (const name of ['mailpit', 'otel-collector', 'jaeger']) expect(compose.services?.[name], name).toBeDefined();
    for (const workload of WORKLOADS) expect(composeEnvironment(compose.services?.[workload.name] ?? {}).get('OTEL_EXPORTER_OTLP_ENDPOINT'), workload.name).toBe('http://otel-collector:4318');
    expect(config.OTEL_EXPORTER_OTLP_ENDPOINT).toMatch(/^https?:\/\//);
    expect(secretValues.ADMIN_ACCOUNTS).toBeDefined();
  });
});

/** The pods of a Job under k8s/. */
function podOfJob(name: string): Endpoint {
  const job = getOne('Job', name);
  return { namespace: job.metadata?.namespace ?? NAMESPACE, labels: job.spec?.template?.metadata?.labels ?? {} };
}

/** The gateway's defaults for the limits the ingress must let through. */
function loadConfigDefaults(): { AUDIO_MAX_BYTES: number; UPLOAD_TIMEOUT_MS: number } {
  const shape = gatewayShape as Record<string, { parse(v: unknown): unknown }>;
  return { AUDIO_MAX_BYTES: Number(shape.AUDIO_MAX_BYTES!.parse(undefined)), UPLOAD_TIMEOUT_MS: Number(shape.UPLOAD_TIMEOUT_MS!.parse(undefined)) };
}

describe('monitoring (infra/monitoring)', () => {
  /** Metric names the code registers (prom-client `name: '...'` in packages/*, services/*, gateway). */
  function metricsInCode(): Set<string> {
    const names = new Set<string>();
    const walk = (dir: string): string[] =>
      readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
        const full = path.join(dir, e.name);
        if (e.isDirectory()) return ['node_modules', 'generated', 'test', 'dist'].includes(e.name) ? [] : walk(full);
        return /\.ts$/.test(e.name) ? [full] : [];
      });
    for (const top of ['packages', 'services', 'gateway']) {
      for (const file of walk(path.join(ROOT, top))) {
        for (const m of readFileSync(file, 'utf8').matchAll(/name: '([a-z_]+)'/g)) names.add(m[1]!);
      }
    }
    return names;
  }
  /** Metric names used in PromQL (histogram series by their base name). */
  function metricsIn(expr: string): string[] {
    return [...expr.matchAll(/\b([a-z_]+(?:_total|_seconds|_messages|_events|_up|_jobs|_bucket|_count|_sum))\b/g)]
      .map((m) => m[1]!.replace(/_(bucket|count|sum)$/, ''))
      .filter((name) => !['humanizeDuration', 'by', 'le'].includes(name));
  }
  const known = metricsInCode();
  const alerts = parseAllDocuments(readFileSync(path.join(ROOT, 'infra/monitoring/alerts.yaml'), 'utf8'))[0]?.toJS() as {
    groups: { rules: { alert: string; expr: string; labels?: { severity?: string } }[] }[];
  };
  const dashboard = JSON.parse(readFileSync(path.join(ROOT, 'infra/monitoring/grafana-dashboard.json'), 'utf8')) as {
    panels: { title: string; targets: { expr: string }[] }[];
  };

  it('alerts only on metrics the code exports, with a severity', () => {
    const rules = alerts.groups.flatMap((g) => g.rules);
    expect(rules.length).toBeGreaterThan(5);
    for (const rule of rules) {
      expect(['page', 'ticket'], rule.alert).toContain(rule.labels?.severity);
      for (const metric of metricsIn(rule.expr)) expect(known, `${rule.alert}: ${metric}`).toContain(metric);
    }
  });

  it('covers what an operator pages on: outbox backlog, consumer lag and reachability, dead letters, media queue, degraded calls', () => {
    const exprs = alerts.groups.flatMap((g) => g.rules.map((r) => r.expr)).join('\n');
    const panels = dashboard.panels.flatMap((p) => p.targets.map((t) => t.expr)).join('\n');
    for (const metric of ['outbox_unpublished_events', 'outbox_oldest_unpublished_age_seconds', 'events_consumer_pending_messages', 'events_consumer_up', 'events_consumer_redelivered_messages', 'events_dead_lettered_total', 'media_job_queue_oldest_seconds', 'media_jobs', 'media_job_duration_seconds', 'internal_calls_total']) {
      expect(`${exprs}\n${panels}`, metric).toContain(metric);
    }
    for (const panel of dashboard.panels) for (const t of panel.targets) for (const metric of metricsIn(t.expr)) expect(known, `${panel.title}: ${metric}`).toContain(metric);
  });
});
