import type { FastifyReply, FastifyRequest } from 'fastify';
import { operation, type FastifyPluginAsyncZod } from '@msp/http';
import { clientOf } from '../sessions/sessions.routes.js';
import { renderConsent, renderError } from './consent-page.js';
import type { ConsentOutcome, OAuthAnswer, OAuthHttpRequest, OAuthServerService } from './oauth-server.service.js';

/** The consent page cannot be framed (clickjacking) nor cached; no script runs on it. */
const PAGE_HEADERS = {
  'cache-control': 'no-store',
  'x-frame-options': 'DENY',
  'content-security-policy': "default-src 'none'; style-src 'unsafe-inline'; frame-ancestors 'none'; base-uri 'none'",
  'referrer-policy': 'no-referrer',
};

/**
 * A redirect back to the app, or the page. A refusal is the page (with its status) for a browser
 * (Accept: text/html) and the usual ErrorResponse for any other client.
 */
function sendOutcome(request: FastifyRequest, reply: FastifyReply, outcome: ConsentOutcome, redirectStatus: 302 | 303) {
  if (outcome.kind === 'redirect') {
    reply.header('cache-control', 'no-store');
    return reply.redirect(outcome.location, redirectStatus);
  }
  const problem = outcome.problem;
  const accept = request.headers.accept;
  if (problem && !(typeof accept === 'string' && accept.includes('text/html'))) throw problem;
  reply.headers({ ...PAGE_HEADERS, ...problem?.headers }).type('text/html; charset=utf-8');
  if (outcome.kind === 'error-page') return reply.code(outcome.problem.status).send(renderError(outcome.problem.message));
  return reply.code(problem?.status ?? 200).send(
    renderConsent({
      appName: outcome.app.name,
      homepageUrl: outcome.app.homepageUrl,
      scopes: outcome.scopes,
      params: outcome.params,
      email: outcome.email,
      mfaToken: outcome.mfaToken,
      error: problem?.message,
    }),
  );
}

function rawOf(request: FastifyRequest, body: Record<string, string>): OAuthHttpRequest {
  return { method: request.method, headers: request.headers, query: {}, body };
}

function sendAnswer(reply: FastifyReply, answer: OAuthAnswer) {
  reply.code(answer.status).headers(answer.headers);
  return answer.body === null ? reply.send() : reply.send(answer.body);
}

/**
 * APP-11…APP-16: the consent page and the OAuth endpoints, registered from their contract
 * (packages/contracts/src/operations/identity/oauth-server.ts). Form bodies
 * (application/x-www-form-urlencoded, as OAuth requires) are parsed here only.
 */
export const oauthServerModule: FastifyPluginAsyncZod<{ oauthServer: OAuthServerService }> = async (app, { oauthServer }) => {
  app.addContentTypeParser('application/x-www-form-urlencoded', { parseAs: 'string' }, (_request, body, done) => {
    // No prototype: a parameter named __proto__ is just a parameter.
    const out: Record<string, string> = Object.create(null) as Record<string, string>;
    for (const [name, value] of new URLSearchParams(body as string)) {
      // A repeated parameter is refused by the contract's schemas (RFC 6749 §3.1).
      if (Object.hasOwn(out, name)) {
        done(null, { ...out, [name]: [out[name], value] });
        return;
      }
      out[name] = value;
    }
    done(null, out);
  });

  app.route({
    ...operation('APP-11'),
    handler: async (request, reply) => sendOutcome(request, reply, await oauthServer.check(request.query), 302),
  });

  app.route({
    ...operation('APP-12'),
    handler: async (request, reply) => {
      const { decision, email, password, mfa_token: mfaToken, code, recovery_code: recoveryCode, ...params } = request.body;
      const form = { decision, email, password, mfaToken, code, recoveryCode };
      const outcome = await oauthServer.decide(params, form, clientOf(request), rawOf(request, {}));
      return sendOutcome(request, reply, outcome, 303);
    },
  });

  app.route({
    ...operation('APP-13'),
    handler: async (request, reply) =>
      sendAnswer(reply, await oauthServer.token(rawOf(request, request.body), request.url.split('?')[0] ?? '', String(request.id))),
  });

  app.route({
    ...operation('APP-14'),
    handler: async (request, reply) =>
      sendAnswer(reply, await oauthServer.revoke(rawOf(request, request.body), request.url.split('?')[0] ?? '', String(request.id))),
  });

  app.route({
    ...operation('APP-15'),
    handler: async (request, reply) =>
      sendAnswer(reply, await oauthServer.introspect(rawOf(request, request.body), request.url.split('?')[0] ?? '', String(request.id))),
  });

  app.route({
    ...operation('APP-16'),
    handler: async (_request, reply) => {
      reply.header('cache-control', 'public, max-age=300');
      return oauthServer.metadata();
    },
  });
};
