/**
 * Plays the browser at the local Google stand-in (scripts/oidc-stand-in.ts): follows its
 * redirects with a cookie jar, fills in its sign-in form and returns where it finally sends the
 * browser (the client's redirect URI with `code` and `state`, or `error`).
 */
export interface StandInSignIn {
  /** The redirect back to the client, absolute. */
  redirect: URL;
  /** The sign-in page's HTML, as the browser showed it. */
  page: string;
}

export async function signInAtStandIn(authorizeUrl: string, form: { email: string; name?: string; action?: 'login' | 'cancel' }): Promise<StandInSignIn> {
  const jar = new Map<string, string>();
  const go = async (url: string, init: RequestInit = {}) => {
    const res = await fetch(url, {
      ...init,
      redirect: 'manual',
      headers: { ...(init.headers as Record<string, string> | undefined), cookie: [...jar].map(([k, v]) => `${k}=${v}`).join('; ') },
      signal: AbortSignal.timeout(10_000),
    });
    for (const cookie of res.headers.getSetCookie()) {
      const pair = cookie.split(';', 1)[0]!;
      const eq = pair.indexOf('=');
      jar.set(pair.slice(0, eq), pair.slice(eq + 1));
    }
    return res;
  };
  const location = (res: Response, base: string) => {
    if (res.status < 300 || res.status > 399) throw new Error(`expected a redirect from ${base}, got ${res.status}`);
    return new URL(res.headers.get('location')!, base).toString();
  };

  const interaction = location(await go(authorizeUrl), authorizeUrl);
  const shown = await go(interaction);
  if (shown.status !== 200) throw new Error(`sign-in page answered ${shown.status}: ${await shown.text()}`);
  const page = await shown.text();
  const body = new URLSearchParams({ email: form.email, name: form.name ?? '', action: form.action ?? 'login' });
  const resume = location(await go(interaction, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body }), interaction);
  const back = location(await go(resume), resume);
  return { redirect: new URL(back), page };
}
