/**
 * Static checks of the deployment files (k8s/, docker-compose.yml, the Dockerfiles). Neither Docker
 * nor a cluster is available where the tests run, so the manifests are parsed and cross-checked:
 * every process gets probes, resources, its port, and every variable its config requires in
 * production (`requiredEnv`, imported from the process's own src/config.ts so the two cannot drift).
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

import { describe, expect, it } from 'vitest';
import { parseAllDocuments } from 'yaml';

import { requiredEnv as billingRequiredEnv } from '../../../services/billing/src/config.ts';
import { requiredEnv as catalogRequiredEnv } from '../../../services/catalog/src/config.ts';
import { requiredEnv as identityRequiredEnv } from '../../../services/identity/src/config.ts';
import { requiredEnv as mediaProcessingRequiredEnv } from '../../../services/media-processing/src/config.ts';
import { requiredEnv as messagingRequiredEnv } from '../../../services/messaging/src/config.ts';
import { requiredEnv as notificationRequiredEnv } from '../../../services/notification/src/config.ts';
import { requiredEnv as socialRequiredEnv } from '../../../services/social/src/config.ts';
import { requiredEnv as gatewayRequiredEnv } from '../../../gateway/src/config.ts';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');
const K8S_DIR = path.join(ROOT, 'k8s');
const NAMESPACE = 'music';

interface Workload {
  name: string;
  port: number;
  /** Folder of the package, relative to the repository root. */
  dir: string;
  requiredEnv: readonly string[];
}

const SERVICES: readonly Workload[] = [
  { name: 'identity', port: 8081, dir: 'services/identity', requiredEnv: identityRequiredEnv },
  { name: 'catalog', port: 8082, dir: 'services/catalog', requiredEnv: catalogRequiredEnv },
  { name: 'media-processing', port: 8083, dir: 'services/media-processing', requiredEnv: mediaProcessingRequiredEnv },
  { name: 'social', port: 8084, dir: 'services/social', requiredEnv: socialRequiredEnv },
  { name: 'messaging', port: 8085, dir: 'services/messaging', requiredEnv: messagingRequiredEnv },
  { name: 'notification', port: 8086, dir: 'services/notification', requiredEnv: notificationRequiredEnv },
  { name: 'billing', port: 8087, dir: 'services/billing', requiredEnv: billingRequiredEnv },
];
const GATEWAY: Workload = { name: 'gateway', port: 8080, dir: 'gateway', requiredEnv: gatewayRequiredEnv };
const WORKLOADS: readonly Workload[] = [...SERVICES, GATEWAY];
const AUTOSCALED = ['gateway', 'media-processing'] as const;
const INFRASTRUCTURE = ['postgres', 'nats', 'redis', 'minio'] as const;
const DATABASES = SERVICES.map((s) => `msp_${s.name.replace(/-/g, '_')}`);

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
    terminationGracePeriodSeconds?: number;
    volumes?: { name: string; configMap?: { name: string } }[];
  };
}
interface Manifest {
  apiVersion?: string;
  kind?: string;
  metadata?: { name?: string; namespace?: string };
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
  build?: string | { context?: string; dockerfile?: string };
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

      it('gives the container every variable of its requiredEnv, from resolvable ConfigMap/Secret keys', () => {
        expect(workload.requiredEnv.length).toBeGreaterThan(0);
        const container = containerOf(getOne('Deployment', workload.name), workload.name);
        const { names, problems } = resolveEnv(container);
        expect(problems, 'unresolvable env entries').toEqual([]);
        expect(workload.requiredEnv.filter((name) => !names.has(name)), 'requiredEnv names missing from the container').toEqual([]);
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

  it('autoscales the gateway and media-processing on cpu (autoscaling/v2)', () => {
    for (const name of AUTOSCALED) {
      const hpa = getOne('HorizontalPodAutoscaler', name);
      expect(hpa.apiVersion).toBe('autoscaling/v2');
      expect(hpa.spec?.scaleTargetRef).toMatchObject({ kind: 'Deployment', name });
      expect(hpa.spec?.minReplicas ?? 1).toBeGreaterThanOrEqual(2);
      expect(hpa.spec?.maxReplicas).toBeGreaterThan(hpa.spec?.minReplicas ?? 1);
      expect(hpa.spec?.metrics?.some((m) => m.type === 'Resource' && m.resource?.name === 'cpu')).toBe(true);
    }
  });

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

  it('runs PostgreSQL as a StatefulSet with a PVC whose init script creates every service database', () => {
    const postgres = getOne('StatefulSet', 'postgres');
    expect(postgres.spec?.volumeClaimTemplates?.length).toBeGreaterThan(0);
    const configMaps = (postgres.spec?.template?.spec?.volumes ?? []).flatMap((v) => (v.configMap ? [v.configMap.name] : []));
    const init = configMaps.map((name) => Object.values(getOne('ConfigMap', name).data ?? {}).join('\n')).join('\n');
    for (const database of DATABASES) expect(init).toContain(`CREATE DATABASE ${database};`);
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

  it('creates every service database in infra/postgres/init.sql', () => {
    const init = readFileSync(path.join(ROOT, 'infra/postgres/init.sql'), 'utf8');
    for (const database of DATABASES) expect(init).toContain(`CREATE DATABASE ${database};`);
  });

  for (const workload of WORKLOADS) {
    it(`builds ${workload.name} from ${workload.dir}/Dockerfile with a healthcheck, its dependencies and its requiredEnv`, () => {
      const service = compose.services?.[workload.name];
      expect(service, workload.name).toBeDefined();
      const build = typeof service?.build === 'string' ? { context: service.build } : service?.build;
      expect(build?.dockerfile).toBe(`${workload.dir}/Dockerfile`);
      expect(existsSync(path.join(ROOT, build?.context ?? '.', build?.dockerfile ?? 'missing'))).toBe(true);
      expect(service?.healthcheck?.test, 'healthcheck').toBeDefined();
      expect(service?.healthcheck?.disable).not.toBe(true);

      const deps = composeDependencies(service!);
      const expected = workload === GATEWAY ? ['redis', ...SERVICES.map((s) => s.name)] : [...INFRASTRUCTURE];
      for (const dependency of expected) expect(deps.get(dependency), `depends_on ${dependency}`).toBe('service_healthy');

      const env = composeEnvironment(service!);
      expect(workload.requiredEnv.filter((name) => !env.get(name)), 'requiredEnv names missing from environment').toEqual([]);
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

describe('Dockerfiles', () => {
  for (const workload of WORKLOADS) {
    it(`${workload.dir}/Dockerfile installs @msp/${workload.name} from the lockfile on node:20-slim and runs as non-root`, () => {
      const dockerfile = readFileSync(path.join(ROOT, workload.dir, 'Dockerfile'), 'utf8');
      expect(dockerfile).toMatch(/^FROM node:20-slim\b/m);
      expect(dockerfile).toContain('npm i -g pnpm@10');
      expect(dockerfile).toMatch(new RegExp(`pnpm install --frozen-lockfile\\b.*--filter "?@msp/${workload.name}\\.\\.\\."?`));
      if (workload !== GATEWAY) expect(dockerfile).toContain(`pnpm --filter @msp/${workload.name} generate`);
      if (workload.name === 'media-processing') expect(dockerfile).toMatch(/apt-get install -y\b.*\bffmpeg\b/);
      const users = [...dockerfile.matchAll(/^USER\s+(\S+)/gm)].map((m) => m[1]);
      expect(users.length).toBeGreaterThan(0);
      expect(users.at(-1)).not.toMatch(/^(root|0)(:|$)/);
      expect(dockerfile).toMatch(/^CMD\s+\[/m);
      expect(dockerfile).toContain(`EXPOSE ${workload.port}`);
    });
  }
});
