import { ensureInfra } from './infra.js';

/**
 * Vitest global setup: runs once per test run, before the workers start, so every test file
 * sees the same PostgreSQL/NATS/Redis (the environment's, the local defaults, or containers).
 */
export default async function setup(): Promise<void> {
  await ensureInfra();
}
