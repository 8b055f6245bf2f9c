import { createHash } from 'node:crypto';

/**
 * MFA-13: a bare page to try passkeys by hand and to drive them from a headless browser in the
 * end-to-end tests. WebAuthn only works on a page whose origin is one of WEBAUTHN_ORIGINS under
 * WEBAUTHN_RP_ID, so it is served through the gateway like the API it calls (same origin, the
 * refresh cookie included). Development and test only: production does not register the route.
 *
 * `window.passkeys` offers `login(email, password)`, `register(name)`, `signIn()` and `signOut()`;
 * each resolves to `{ status, body }` of the last API call.
 */
const SCRIPT = `
const state = { accessToken: null };
const out = document.getElementById('out');
async function call(method, path, body) {
  const headers = { 'content-type': 'application/json' };
  if (state.accessToken) headers.authorization = 'Bearer ' + state.accessToken;
  const res = await fetch('/api' + path, { method, headers, credentials: 'same-origin', body: body === undefined ? undefined : JSON.stringify(body) });
  const text = await res.text();
  const result = { status: res.status, body: text ? JSON.parse(text) : null };
  out.textContent = method + ' ' + path + ' → ' + JSON.stringify(result, null, 2);
  return result;
}
function signedIn(result) {
  if (result.status === 200 && result.body && result.body.accessToken) state.accessToken = result.body.accessToken;
  return result;
}
window.passkeys = {
  async login(email, password) {
    return signedIn(await call('POST', '/auth/login/local', { email, password }));
  },
  async register(name) {
    const options = await call('POST', '/users/me/passkeys/options');
    if (options.status !== 200) return options;
    const credential = await navigator.credentials.create({ publicKey: PublicKeyCredential.parseCreationOptionsFromJSON(options.body) });
    return call('POST', '/users/me/passkeys', { credential: credential.toJSON(), name: name || undefined });
  },
  async signIn() {
    const options = await call('POST', '/auth/passkeys/options', {});
    if (options.status !== 200) return options;
    const credential = await navigator.credentials.get({ publicKey: PublicKeyCredential.parseRequestOptionsFromJSON(options.body) });
    return signedIn(await call('POST', '/auth/passkeys/login', { credential: credential.toJSON() }));
  },
  async signOut() {
    const result = await call('POST', '/auth/logout', {});
    state.accessToken = null;
    return result;
  },
  get accessToken() {
    return state.accessToken;
  },
};
const run = (fn) => () => fn().catch((err) => { out.textContent = String(err); });
document.getElementById('login').onclick = run(() => window.passkeys.login(document.getElementById('email').value, document.getElementById('password').value));
document.getElementById('register').onclick = run(() => window.passkeys.register(document.getElementById('name').value));
document.getElementById('signin').onclick = run(() => window.passkeys.signIn());
document.getElementById('signout').onclick = run(() => window.passkeys.signOut());
`;

export const DEV_PAGE_HTML = `<!doctype html>
<html lang="en">
<head><meta charset="utf-8"><title>Passkeys (development)</title></head>
<body>
<h1>Passkeys (development)</h1>
<p><input id="email" placeholder="e-mail"> <input id="password" type="password" placeholder="password"> <button id="login">Log in</button></p>
<p><input id="name" placeholder="passkey name"> <button id="register">Register a passkey</button></p>
<p><button id="signin">Sign in with a passkey</button> <button id="signout">Sign out</button></p>
<pre id="out"></pre>
<script>${SCRIPT}</script>
</body>
</html>
`;

/** The page's own policy (it replaces the gateway's, which allows no inline script): this script only. */
export const DEV_PAGE_CSP = `default-src 'self'; script-src 'sha256-${createHash('sha256').update(SCRIPT).digest('base64')}'; style-src 'self'; object-src 'none'; base-uri 'none'; frame-ancestors 'none'`;
