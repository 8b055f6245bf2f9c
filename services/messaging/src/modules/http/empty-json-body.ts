import type { FastifyInstance } from 'fastify';

/**
 * For the body-less write routes (follow, like, repost, block): clients commonly send
 * `Content-Type: application/json` with an empty body, which Fastify's default parser refuses.
 * Inside the calling plugin only, an empty JSON body is accepted as no body; anything else must
 * still be valid JSON (a SyntaxError renders as 400 MALFORMED_REQUEST).
 */
export function acceptEmptyJsonBody(app: FastifyInstance): void {
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (_request, body, done) => {
    const text = typeof body === 'string' ? body : body.toString('utf8');
    if (text.trim() === '') {
      done(null, undefined);
      return;
    }
    try {
      done(null, JSON.parse(text) as unknown);
    } catch (err) {
      done(err as Error, undefined);
    }
  });
}
