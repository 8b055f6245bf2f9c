import { runServer } from '@msp/http';
import { buildApp, loadMediaProcessingConfig } from './app.js';

const config = loadMediaProcessingConfig();
const app = await buildApp(config);
await runServer(app, { host: config.HOST, port: config.PORT });
