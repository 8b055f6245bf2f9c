/// <reference path="./vendor-types.d.ts" />
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import fastifyStatic from '@fastify/static';
import { getAbsoluteFSPath } from 'swagger-ui-dist';
import type { OpenApiDocument } from './openapi.js';

const DOCS_PREFIX = '/api/docs/';

// Own page instead of the bundle's index.html: absolute asset URLs (works at /api/docs and
// /api/docs/) and no inline script, so the CSP can keep script-src 'self'.
const INDEX_HTML = `<!DOCTYPE html>
<html lang="en">
  <head>
    <meta charset="UTF-8">
    <title>Music Streaming Platform API</title>
    <link rel="stylesheet" type="text/css" href="${DOCS_PREFIX}swagger-ui.css" />
    <link rel="stylesheet" type="text/css" href="${DOCS_PREFIX}index.css" />
    <link rel="icon" type="image/png" href="${DOCS_PREFIX}favicon-32x32.png" sizes="32x32" />
  </head>
  <body>
    <div id="swagger-ui"></div>
    <script src="${DOCS_PREFIX}swagger-ui-bundle.js" charset="UTF-8"></script>
    <script src="${DOCS_PREFIX}swagger-ui-standalone-preset.js" charset="UTF-8"></script>
    <script src="${DOCS_PREFIX}swagger-initializer.js" charset="UTF-8"></script>
  </body>
</html>
`;

// validatorUrl null: the page must not call swagger.io (no third-party requests, CSP connect-src 'self').
const INITIALIZER_JS = `window.onload = function () {
  window.ui = SwaggerUIBundle({
    url: '/api/openapi.json',
    dom_id: '#swagger-ui',
    deepLinking: true,
    validatorUrl: null,
    presets: [SwaggerUIBundle.presets.apis, SwaggerUIStandalonePreset],
    plugins: [SwaggerUIBundle.plugins.DownloadUrl],
    layout: 'StandaloneLayout'
  });
};
`;

/** `GET /api/openapi.json` (merged document) and `GET /api/docs` (Swagger UI from swagger-ui-dist, no CDN). */
export async function registerDocs(app: FastifyInstance, openApi: { get(): Promise<OpenApiDocument> }): Promise<void> {
  app.get('/api/openapi.json', async () => openApi.get());
  const page = async (_request: FastifyRequest, reply: FastifyReply) => reply.type('text/html; charset=utf-8').send(INDEX_HTML);
  app.get('/api/docs', page);
  app.get(DOCS_PREFIX, page);
  app.get(`${DOCS_PREFIX}swagger-initializer.js`, async (_request, reply) => reply.type('application/javascript; charset=utf-8').send(INITIALIZER_JS));
  await app.register(fastifyStatic, { root: getAbsoluteFSPath(), prefix: DOCS_PREFIX, index: false, decorateReply: false });
}
