import { runServer } from '@msp/http';
import { buildApp, loadSocialConfig } from './app.js';

const config = loadSocialConfig();
const app = await buildApp(config);
await runServer(app, { host: config.HOST, port: config.PORT });
