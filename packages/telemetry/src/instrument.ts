/**
 * Preloaded by the images: `node --import ./dist/instrument.js dist/server.js`
 * (scripts/build-service.mjs bundles it into every workload). With OTEL_EXPORTER_OTLP_ENDPOINT set
 * it registers the ESM hook that lets the http and pg instrumentations patch those modules as the
 * application imports them, then starts tracing with them; without it, it does nothing and the
 * application starts tracing without export (ids in logs only).
 */
import { readFileSync } from 'node:fs';
import { register } from 'node:module';
import path from 'node:path';
import { HttpInstrumentation } from '@opentelemetry/instrumentation-http';
import { PgInstrumentation } from '@opentelemetry/instrumentation-pg';
import { initTelemetry, isProbe } from './tracing.js';

function serviceName(): string {
  try {
    const pkg = JSON.parse(readFileSync(path.join(process.cwd(), 'package.json'), 'utf8')) as { name?: string };
    return (pkg.name ?? 'unknown').replace(/^@msp\//, '');
  } catch {
    return 'unknown';
  }
}

if (process.env.OTEL_EXPORTER_OTLP_ENDPOINT) {
  register('@opentelemetry/instrumentation/hook.mjs', import.meta.url);
  const service = serviceName();
  initTelemetry({
    service,
    // The gateway's undici calls are its proxied requests: they carry its own context (gateway/src/proxy.ts).
    undici: service !== 'gateway',
    instrumentations: [new HttpInstrumentation({ ignoreIncomingRequestHook: (req) => isProbe(req.url) }), new PgInstrumentation({ requireParentSpan: true })],
  });
}
