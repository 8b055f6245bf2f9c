import { runServer } from '@msp/http';
import { buildApp, loadBillingConfig } from './app.js';

const config = loadBillingConfig();
const app = await buildApp(config);
await runServer(app, { host: config.HOST, port: config.PORT });
