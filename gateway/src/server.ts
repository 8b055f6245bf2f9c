import { runServer } from '@msp/http';
import { buildGateway } from './app.js';
import { loadGatewayConfig } from './config.js';

const config = loadGatewayConfig();
const app = await buildGateway(config);
await runServer(app, { host: config.HOST, port: config.PORT });
