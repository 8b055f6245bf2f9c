import { operation, type FastifyPluginAsyncZod } from '@msp/http';
import type { WebhooksService } from './webhooks.service.js';

/**
 * SUB-5. Encapsulated: inside this plugin every body is kept as the raw bytes the gateway passed
 * through, since the signature covers exactly those bytes; other routes keep JSON parsing.
 */
export const webhooksModule: FastifyPluginAsyncZod<{ webhooks: WebhooksService }> = async (app, { webhooks }) => {
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('*', { parseAs: 'buffer' }, (_request, body, done) => done(null, body));

  app.route({
    ...operation('SUB-5'),
    handler: async (request) => {
      const raw = Buffer.isBuffer(request.body) ? request.body : Buffer.alloc(0);
      const signature = request.headers['stripe-signature'];
      return webhooks.receive(raw, typeof signature === 'string' ? signature : undefined);
    },
  });
};
