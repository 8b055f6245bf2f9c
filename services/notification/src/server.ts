import { runServer } from '@msp/http';
import { buildApp, loadNotificationConfig } from './app.js';

const config = loadNotificationConfig();
const app = await buildApp(config);
await runServer(app, { host: config.HOST, port: config.PORT });
