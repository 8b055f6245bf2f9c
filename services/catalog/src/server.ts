import { runServer } from '@msp/http';
import { buildApp, loadCatalogConfig } from './app.js';

const config = loadCatalogConfig();
const app = await buildApp(config);
await runServer(app, { host: config.HOST, port: config.PORT });
