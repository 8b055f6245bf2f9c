#!/usr/bin/env node
// Compiles one deployable workload (a service or the gateway) to JavaScript: `dist/server.js`,
// `dist/instrument.js` (tracing preload) and,
// for a service with a database, `dist/migrate.js` (applies prisma/migrations; the Kubernetes Job and
// the compose `migrate` step run it). The workload's own code, its generated Prisma client and the
// @msp/* workspace packages are bundled; every third-party package stays an import resolved from
// node_modules at run time (`pnpm deploy --prod` installs them in the image).
// Run from the workload's folder: `node ../../scripts/build-service.mjs` (its `build` script).
import { existsSync, rmSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const cwd = process.cwd();
// instrument.js is preloaded (`node --import ./dist/instrument.js dist/server.js`): with
// OTEL_EXPORTER_OTLP_ENDPOINT set it turns on the http and pg instrumentations before the app loads.
const entryPoints = { server: 'src/server.ts', instrument: path.join(root, 'packages/telemetry/src/instrument.ts') };
if (existsSync(path.join(cwd, 'prisma/migrations'))) entryPoints.migrate = path.join(root, 'packages/runtime/src/migrate-cli.ts');

/** Bundles @msp/* and relative imports; leaves every other bare import to node_modules. */
const thirdPartyExternal = {
  name: 'third-party-external',
  setup(b) {
    b.onResolve({ filter: /^[^./]/ }, (args) => {
      if (args.path.startsWith('@msp/') || path.isAbsolute(args.path)) return undefined;
      return { path: args.path, external: true };
    });
  },
};

rmSync(path.join(cwd, 'dist'), { recursive: true, force: true });
const result = await build({
  absWorkingDir: cwd,
  entryPoints,
  outdir: 'dist',
  bundle: true,
  platform: 'node',
  target: 'node20',
  format: 'esm',
  sourcemap: 'linked',
  splitting: true,
  chunkNames: 'chunks/[name]-[hash]',
  // Bundled CommonJS helpers that call require() get one made for the module.
  banner: { js: "import { createRequire as __mspCreateRequire } from 'node:module'; const require = __mspCreateRequire(import.meta.url);" },
  plugins: [thirdPartyExternal],
  logLevel: 'warning',
  metafile: true,
});
const bytes = Object.values(result.metafile.outputs).reduce((sum, o) => sum + o.bytes, 0);
console.log(`${path.relative(root, cwd)}: dist/ (${Object.keys(entryPoints).join(', ')}) ${(bytes / 1024).toFixed(0)} KiB`);
