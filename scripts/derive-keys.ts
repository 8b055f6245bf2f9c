/**
 * `pnpm keys:derive [master]`: the fleet's trust keys, as `stringData` lines of Secret msp-secrets
 * (k8s/secrets.yaml).
 *
 * - GATEWAY_SIGNING_KEY: the gateway's master key (the argument, else 32 fresh random bytes).
 * - <SERVICE>_GATEWAY_ASSERTION_KEY: the key each service verifies X-Gateway-Assertion with,
 *   `deriveAssertionKey(master, service)` (packages/http), the same function the gateway signs with.
 * - INTERNAL_SERVICE_KEY (X-Service-Token of `/internal/*` calls, every service) and METRICS_TOKEN
 *   (Bearer token of the gateway's /metrics): fresh random values on every run. When you only
 *   re-derive the assertion keys for an existing master, keep the values you already deploy.
 *
 * A master given on the command line lands in the shell history; leave it out to generate one.
 * The output is a secret: paste it into your secret manager, never into Git.
 */
import { randomBytes } from 'node:crypto';
import { realpathSync } from 'node:fs';
import { pathToFileURL } from 'node:url';

import { SERVICE_NAMES } from '../packages/contracts/src/services.ts';
import { deriveAssertionKey } from '../packages/http/src/gateway-assertion.ts';

/** The Secret key holding a service's GATEWAY_ASSERTION_KEY (k8s/services/<name>.yaml references it). */
export function assertionSecretKey(service: string): string {
  return `${service.toUpperCase().replace(/-/g, '_')}_GATEWAY_ASSERTION_KEY`;
}

/** packages/config and the gateway config refuse keys shorter than 16 characters. */
const MIN_LENGTH = 16;

function random(): string {
  return randomBytes(32).toString('base64url');
}

export function deriveFleetKeys(master: string): Record<string, string> {
  return Object.fromEntries(SERVICE_NAMES.map((service) => [assertionSecretKey(service), deriveAssertionKey(master, service)]));
}

function main(argv: string[]): number {
  const args = argv.filter((arg) => arg !== '--');
  if (args.length > 1 || args[0] === '-h' || args[0] === '--help') {
    process.stderr.write('usage: pnpm keys:derive [master-key]\n');
    return args[0] === '-h' || args[0] === '--help' ? 0 : 2;
  }
  const given = args[0];
  if (given !== undefined && given.length < MIN_LENGTH) {
    process.stderr.write(`the master key must have at least ${MIN_LENGTH} characters (32 random bytes recommended)\n`);
    return 2;
  }
  const master = given ?? random();
  const lines = [
    `# pnpm keys:derive (${new Date().toISOString()}): stringData of Secret msp-secrets (k8s/secrets.yaml).`,
    '# Secret values: keep them out of Git. INTERNAL_SERVICE_KEY and METRICS_TOKEN are new random values;',
    '# keep the deployed ones if you only re-derive the assertion keys of an existing master key.',
    ...Object.entries({
      GATEWAY_SIGNING_KEY: master,
      METRICS_TOKEN: random(),
      INTERNAL_SERVICE_KEY: random(),
      ...deriveFleetKeys(master),
    }).map(([key, value]) => `  ${key}: ${JSON.stringify(value)}`), // a JSON string is a YAML double-quoted scalar
  ];
  process.stdout.write(`${lines.join('\n')}\n`);
  return 0;
}

/** True when this file is the entry point (`tsx scripts/derive-keys.ts`), not an import (tests/infra). */
function isEntryPoint(): boolean {
  try {
    return process.argv[1] !== undefined && import.meta.url === pathToFileURL(realpathSync(process.argv[1])).href;
  } catch {
    return false;
  }
}

if (isEntryPoint()) process.exitCode = main(process.argv.slice(2));
