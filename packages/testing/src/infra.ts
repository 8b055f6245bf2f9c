import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { answers } from './ports.js';

export interface TestInfra {
  /** Server URL without a database path, e.g. postgresql://postgres@127.0.0.1:5432 */
  postgresUrl: string;
  natsUrl: string;
  redisUrl: string;
}

/** Infrastructure URLs from the environment, or the local defaults of ENVIRONMENT.md. */
export function testInfra(env: Record<string, string | undefined> = process.env): TestInfra {
  return {
    postgresUrl: env.TEST_POSTGRES_URL ?? 'postgresql://postgres@127.0.0.1:5432',
    natsUrl: env.NATS_URL ?? 'nats://127.0.0.1:4222',
    redisUrl: env.REDIS_URL ?? 'redis://127.0.0.1:6379',
  };
}

async function dockerAvailable(): Promise<boolean> {
  try {
    await promisify(execFile)('docker', ['info'], { timeout: 3000 });
    return true;
  } catch {
    return false;
  }
}

function hostPort(url: string, fallbackPort: number): [string, number] {
  const u = new URL(url);
  return [u.hostname, u.port ? Number(u.port) : fallbackPort];
}

/**
 * Makes sure PostgreSQL, NATS and Redis answer. Uses what the environment names (or the local
 * defaults); only when one does not answer AND a Docker engine is reachable does it start
 * containers through testcontainers (a developer laptop with Docker but no local services).
 * Sets the matching environment variables so every test file sees the same infrastructure.
 */
export async function ensureInfra(): Promise<TestInfra> {
  const infra = testInfra();
  const missing: Array<'postgres' | 'nats' | 'redis'> = [];
  if (!(await answers(...hostPort(infra.postgresUrl, 5432)))) missing.push('postgres');
  if (!(await answers(...hostPort(infra.natsUrl, 4222)))) missing.push('nats');
  if (!(await answers(...hostPort(infra.redisUrl, 6379)))) missing.push('redis');
  if (missing.length === 0) return infra;
  if (!(await dockerAvailable())) {
    throw new Error(
      `Test infrastructure not reachable (${missing.join(', ')}) and no Docker engine: start the local services (see README.md) or set TEST_POSTGRES_URL / NATS_URL / REDIS_URL.`,
    );
  }
  // Optional dependency, loaded only on machines that have Docker and no local services.
  const { GenericContainer } = await import('testcontainers');
  const start = async (container: InstanceType<typeof GenericContainer>, port: number) => {
    const started = await container.withExposedPorts(port).start();
    return `${started.getHost()}:${started.getMappedPort(port)}`;
  };
  if (missing.includes('postgres')) {
    const address = await start(new GenericContainer('postgres:15').withEnvironment({ POSTGRES_HOST_AUTH_METHOD: 'trust' }), 5432);
    infra.postgresUrl = `postgresql://postgres@${address}`;
    process.env.TEST_POSTGRES_URL = infra.postgresUrl;
  }
  if (missing.includes('nats')) {
    infra.natsUrl = `nats://${await start(new GenericContainer('nats:2.10').withCommand(['-js']), 4222)}`;
    process.env.NATS_URL = infra.natsUrl;
  }
  if (missing.includes('redis')) {
    infra.redisUrl = `redis://${await start(new GenericContainer('redis:7'), 6379)}`;
    process.env.REDIS_URL = infra.redisUrl;
  }
  return infra;
}
