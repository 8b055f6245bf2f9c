import { z } from 'zod';
import type { Operations } from '../../operation-schema.js';

const param = z.string().max(2048).optional();
const AuthorizeQuerySchema = z.object({
  response_type: param,
  client_id: param,
  redirect_uri: param,
  scope: param,
  state: param,
  code_challenge: param,
  code_challenge_method: param,
});
const ConsentFormSchema = AuthorizeQuerySchema.extend({
  decision: z.string().max(20).optional(),
  email: z.string().max(1000).optional(),
  password: z.string().max(1000).optional(),
  // The code step of an account with two-factor sign-in.
  mfa_token: z.string().max(200).optional(),
  code: z.string().max(20).optional(),
  recovery_code: z.string().max(100).optional(),
});
/** RFC 6749 form parameters: strings only (a repeated parameter is refused). */
const OAuthFormSchema = z.record(z.string().max(100), z.string().max(8192));

/**
 * The operations of identity's oauth-server module (contract row, input and output; services/identity/src/modules/oauth-server).
 * Form bodies (application/x-www-form-urlencoded) are parsed by that module; a repeated parameter
 * comes as an array, which these schemas refuse.
 */
export const IDENTITY_OAUTH_SERVER = {
  'APP-11': {
    method: 'GET',
    path: '/oauth/authorize',
    auth: 'none',
    owner: 'identity',
    bodyKind: 'none',
    summary: 'OAuth authorization request: consent page',
    errors: ['VALIDATION_FAILED', 'FORBIDDEN'],

    querystring: AuthorizeQuerySchema,
  },
  'APP-12': {
    method: 'POST',
    path: '/oauth/authorize',
    auth: 'none',
    owner: 'identity',
    bodyKind: 'json',
    summary: 'Consent page: sign in and approve or deny',
    errors: [
      'VALIDATION_FAILED',
      'INVALID_CREDENTIALS',
      'INVALID_MFA_CODE',
      'EMAIL_NOT_VERIFIED',
      'ACCOUNT_BANNED',
      'ACCOUNT_SUSPENDED',
      'FORBIDDEN',
      'RATE_LIMITED',
    ],

    body: ConsentFormSchema,
  },
  'APP-13': {
    method: 'POST',
    path: '/oauth/token',
    auth: 'none',
    owner: 'identity',
    bodyKind: 'json',
    summary: 'OAuth token endpoint (code + PKCE, refresh)',
    errors: ['VALIDATION_FAILED', 'UNAUTHORIZED', 'INVALID_TOKEN', 'FORBIDDEN'],

    body: OAuthFormSchema,
  },
  'APP-14': {
    method: 'POST',
    path: '/oauth/revoke',
    auth: 'none',
    owner: 'identity',
    bodyKind: 'json',
    summary: 'OAuth token revocation (RFC 7009)',
    errors: ['VALIDATION_FAILED', 'UNAUTHORIZED'],

    body: OAuthFormSchema,
  },
  'APP-15': {
    method: 'POST',
    path: '/oauth/introspect',
    auth: 'none',
    owner: 'identity',
    bodyKind: 'json',
    summary: 'OAuth token introspection (RFC 7662)',
    errors: ['VALIDATION_FAILED', 'UNAUTHORIZED'],

    body: OAuthFormSchema,
  },
  'APP-16': {
    method: 'GET',
    path: '/.well-known/oauth-authorization-server',
    auth: 'none',
    owner: 'identity',
    bodyKind: 'none',
    summary: 'OAuth authorization-server metadata (RFC 8414)',
  },
} satisfies Operations;
