import { runServer } from '@msp/http';
import { buildApp, loadMessagingConfig } from './app.js';

const config = loadMessagingConfig();
const app = await buildApp(config);
await runServer(app, { host: config.HOST, port: config.PORT });
