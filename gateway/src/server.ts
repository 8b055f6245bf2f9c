import { runServer } from '@msp/http';
import { initTelemetry } from '@msp/telemetry';
import { buildGateway } from './app.js';
import { loadGatewayConfig } from './config.js';

const config = loadGatewayConfig();
// Before the app: the gateway's process needs no undici client spans (the proxy forwards its own
// trace context; packages/telemetry `undici`). With OTEL_EXPORTER_OTLP_ENDPOINT set, the image's
// instrument.js has started tracing already, and that setup is kept.
initTelemetry({ service: 'gateway', undici: false });
const app = await buildGateway(config);
await runServer(app, { host: config.HOST, port: config.PORT });
