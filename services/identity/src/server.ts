import { runServer } from '@msp/http';
import { buildApp, loadIdentityConfig } from './app.js';

const config = loadIdentityConfig();
const app = await buildApp(config);
await runServer(app, { host: config.HOST, port: config.PORT });
