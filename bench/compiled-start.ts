import { execFileSync } from 'node:child_process';
import { rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { imageNodeOptions } from './image-node-options.ts';

/** The Dockerfile's deploy command (as tests/compiled runs it). */
const DEPLOY_ARGS = ['deploy', '--prod', '--legacy', '--config.node-linker=hoisted', '--config.auto-install-peers=false'];
const deployed: string[] = [];

/**
 * A workload (`gateway`, `services/catalog`, ...) of the checkout at `root` as the image runs it:
 * built (`scripts/build-service.mjs`), deployed with its production dependencies (the Dockerfile's
 * `pnpm deploy`) into a temporary folder, started as `node <image NODE_OPTIONS> dist/server.js`.
 * Returns the folder to start in, the image's node options and the entry; `removeDeployed()` deletes
 * the folders.
 */
export function compiledStart(root: string, workload: string, tag: string): { cwd: string; nodeOptions: string[]; entry: string[] } {
  const source = path.join(root, workload);
  const name = path.basename(workload);
  const cwd = path.join(os.tmpdir(), `msp-bench-${tag}-${name}-${process.pid}`);
  execFileSync(process.execPath, [path.join(root, 'scripts/build-service.mjs')], { cwd: source, stdio: 'ignore' });
  rmSync(cwd, { recursive: true, force: true });
  execFileSync('pnpm', ['--filter', `@msp/${name}`, ...DEPLOY_ARGS, cwd], { cwd: root, stdio: 'ignore' });
  rmSync(path.join(root, 'tmp'), { recursive: true, force: true }); // the hoisted deploy's empty .bin leftovers
  deployed.push(cwd);
  return { cwd, nodeOptions: imageNodeOptions(root), entry: ['dist/server.js'] };
}

export function removeDeployed(): void {
  for (const dir of deployed.splice(0)) rmSync(dir, { recursive: true, force: true });
}
