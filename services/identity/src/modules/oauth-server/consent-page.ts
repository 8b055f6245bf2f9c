import type { AppScope } from '@msp/contracts';

const SCOPE_TEXT: Record<AppScope, string> = {
  read: 'See your profile, tracks, playlists, likes and notifications',
  write: 'Upload tracks and edit your tracks, playlists and profile',
  engage: 'Like, repost, follow, block, comment and report on your behalf',
  messages: 'Read and send your direct messages',
  webhooks: 'Receive events about your account',
};

function escape(text: string): string {
  return text.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c] ?? c);
}

const STYLE = `body{font-family:system-ui,sans-serif;max-width:28rem;margin:3rem auto;padding:0 1rem;color:#222}
h1{font-size:1.3rem}ul{padding-left:1.2rem}label{display:block;margin:.6rem 0 .2rem}
input[type=email],input[type=password],input[type=text]{width:100%;padding:.5rem;box-sizing:border-box}
.actions{display:flex;gap:.8rem;margin-top:1.2rem}button{padding:.6rem 1.2rem;font-size:1rem}
.error{color:#b00020;background:#fdecee;padding:.6rem;border-radius:4px}`;

function page(title: string, body: string): string {
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<meta name="referrer" content="no-referrer"><title>${escape(title)}</title><style>${STYLE}</style></head>
<body>${body}</body></html>`;
}

export interface ConsentView {
  appName: string;
  homepageUrl: string | null;
  scopes: readonly AppScope[];
  /** The authorization request's parameters, posted back unchanged. */
  params: Readonly<Record<string, string>>;
  email?: string;
  /** The code step (account with two-factor sign-in): the attempt's token, posted back with the code. */
  mfaToken?: string;
  error?: string;
}

function credentialFields(email: string | undefined): string {
  return `<label for="email">E-mail</label><input type="email" id="email" name="email" autocomplete="username" value="${escape(email ?? '')}">
<label for="password">Password</label><input type="password" id="password" name="password" autocomplete="current-password">`;
}

/** The second step: a code from the authenticator app, or one of the recovery codes. */
function codeFields(mfaToken: string): string {
  return `<input type="hidden" name="mfa_token" value="${escape(mfaToken)}">
<p id="mfa-prompt">This account uses two-factor sign-in. Enter the code from your authenticator app, or one of your recovery codes.</p>
<label for="code">Code</label><input type="text" id="code" name="code" inputmode="numeric" autocomplete="one-time-code" maxlength="20">
<label for="recovery_code">Or a recovery code</label><input type="text" id="recovery_code" name="recovery_code" autocomplete="off" maxlength="100">`;
}

/**
 * The consent page (APP-11): the app, what it asks for, and the account's e-mail and password;
 * Approve signs in and grants, Deny returns to the app with `access_denied`.
 */
export function renderConsent(view: ConsentView): string {
  const hidden = Object.entries(view.params)
    .map(([name, value]) => `<input type="hidden" name="${escape(name)}" value="${escape(value)}">`)
    .join('\n');
  const scopes = view.scopes.map((s) => `<li><strong>${escape(s)}</strong>: ${escape(SCOPE_TEXT[s])}</li>`).join('');
  const home = view.homepageUrl ? ` (<a href="${escape(view.homepageUrl)}" rel="noopener noreferrer">${escape(view.homepageUrl)}</a>)` : '';
  return page(
    `Authorize ${view.appName}`,
    `<h1><span id="app-name">${escape(view.appName)}</span> wants to access your account</h1>
<p>The app${home} asks to:</p><ul id="scopes">${scopes}</ul>
${view.error ? `<p class="error" id="error" role="alert">${escape(view.error)}</p>` : ''}
<form method="post" action="/api/oauth/authorize" id="consent">
${hidden}
${view.mfaToken ? codeFields(view.mfaToken) : credentialFields(view.email)}
<div class="actions"><button type="submit" name="decision" value="approve" id="approve">${view.mfaToken ? 'Verify and approve' : 'Sign in and approve'}</button>
<button type="submit" name="decision" value="deny" id="deny" formnovalidate>Deny</button></div>
</form>
<p><small>Only approve apps you trust. You can revoke access at any time in your account settings.</small></p>`,
  );
}

/** A request that cannot go back to the app (unknown client, redirect URI not registered). */
export function renderError(message: string): string {
  return page('Authorization failed', `<h1>This authorization request cannot be completed</h1><p class="error" id="error" role="alert">${escape(message)}</p>`);
}
