import { z } from 'zod';
import type { Operations } from '../../operation-schema.js';
import { RefreshDeliveryHeadersSchema } from './sessions.js';
import { DeviceInfoSchema, LoginResponseSchema } from '../../records/auth.js';
import { IdParamSchema } from '../../records/request.js';
import { MfaPasskeySchema, WebAuthnAssertionCredentialSchema, WebAuthnRegistrationCredentialSchema } from './mfa.js';

const PasskeyNameSchema = z.string().trim().min(1).max(64);
const registerPasskeyBody = z.object({ credential: WebAuthnRegistrationCredentialSchema, name: PasskeyNameSchema.optional() });
const renamePasskeyBody = z.object({ name: PasskeyNameSchema });
const passkeyOptionsBody = z
  .object({ mfaToken: z.string().min(1).max(200).optional() })
  .optional()
  .nullable();
const passkeyLoginBody = z.object({ credential: WebAuthnAssertionCredentialSchema, deviceInfo: DeviceInfoSchema.optional().nullable() });

/** WebAuthn options as `navigator.credentials` JSON parsers take them (`PublicKeyCredential.parse…OptionsFromJSON`). */
const webAuthnOptions = z.looseObject({ challenge: z.string() });

const refreshDelivery = RefreshDeliveryHeadersSchema;
const passkeyParams = IdParamSchema('passkeyId');

/** The operations of identity's passkeys module (services/identity/src/modules/passkeys): contract row, input and output. */
export const IDENTITY_PASSKEYS = {
  'MFA-6': {
    method: 'POST',
    path: '/users/me/passkeys/options',
    auth: 'bearer',
    owner: 'identity',
    bodyKind: 'none',
    summary: 'Passkey registration options',
    errors: ['UNAUTHORIZED'],
    description: 'Options for `navigator.credentials.create` (JSON form); the challenge is single use and lives 5 minutes.',
    response: { 200: webAuthnOptions },
  },
  'MFA-7': {
    method: 'POST',
    path: '/users/me/passkeys',
    auth: 'bearer',
    owner: 'identity',
    bodyKind: 'json',
    summary: 'Register a passkey',
    errors: ['VALIDATION_FAILED', 'MALFORMED_REQUEST', 'UNAUTHORIZED', 'INVALID_PASSKEY_REGISTRATION'],
    description: 'The credential `navigator.credentials.create` returned (`toJSON()`), for options from MFA-6.',
    body: registerPasskeyBody,
    response: { 201: MfaPasskeySchema },
  },
  'MFA-8': {
    method: 'GET',
    path: '/users/me/passkeys',
    auth: 'bearer',
    owner: 'identity',
    bodyKind: 'none',
    summary: 'List passkeys',
    errors: ['UNAUTHORIZED'],

    response: { 200: z.array(MfaPasskeySchema) },
  },
  'MFA-9': {
    method: 'PATCH',
    path: '/users/me/passkeys/{passkeyId}',
    auth: 'bearer',
    owner: 'identity',
    bodyKind: 'json',
    summary: 'Rename a passkey',
    errors: ['VALIDATION_FAILED', 'MALFORMED_REQUEST', 'UNAUTHORIZED', 'PASSKEY_NOT_FOUND'],

    params: passkeyParams,
    body: renamePasskeyBody,
    response: { 200: MfaPasskeySchema },
  },
  'MFA-10': {
    method: 'DELETE',
    path: '/users/me/passkeys/{passkeyId}',
    auth: 'bearer',
    owner: 'identity',
    bodyKind: 'none',
    summary: 'Delete a passkey',
    errors: ['VALIDATION_FAILED', 'UNAUTHORIZED', 'PASSKEY_NOT_FOUND'],

    params: passkeyParams,
  },
  'MFA-11': {
    method: 'POST',
    path: '/auth/passkeys/options',
    auth: 'none',
    owner: 'identity',
    bodyKind: 'json',
    summary: 'Passkey sign-in options',
    errors: ['VALIDATION_FAILED', 'MALFORMED_REQUEST', 'INVALID_MFA_TOKEN'],
    description:
      'Without a body (or `{}`): options for a password-less sign-in with a discoverable passkey (MFA-12). With `{mfaToken}` from AUTH-1: ' +
      "options for the second step, listing the account's passkeys (the assertion goes to MFA-4 as `passkey`).",
    body: passkeyOptionsBody,
    response: { 200: webAuthnOptions },
  },
  'MFA-12': {
    method: 'POST',
    path: '/auth/passkeys/login',
    auth: 'none',
    owner: 'identity',
    bodyKind: 'json',
    summary: 'Sign in with a passkey',
    errors: ['VALIDATION_FAILED', 'MALFORMED_REQUEST', 'PASSKEY_REJECTED', 'ACCOUNT_BANNED', 'ACCOUNT_SUSPENDED'],
    description:
      'The assertion `navigator.credentials.get` returned (`toJSON()`) for options from MFA-11. A user-verified passkey is both factors: ' +
      'no password or code. Answers the Login response and sets the refresh cookie like AUTH-1.',
    headers: refreshDelivery,
    body: passkeyLoginBody,
    response: { 200: LoginResponseSchema },
  },
  'MFA-13': {
    method: 'GET',
    path: '/dev/passkeys',
    auth: 'none',
    owner: 'identity',
    bodyKind: 'none',
    summary: 'Passkey test page (development only)',
    produces: ['text/html'],
  },
} satisfies Operations;
