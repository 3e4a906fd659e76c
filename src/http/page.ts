import type { Response } from 'express';
import { hashSource, oauthPagePolicy, serializePolicy } from './security-headers.ts';

/**
 * The server's own small HTML pages (GET /, the OAuth sign-in and consent pages, the portal
 * callbacks): one shell with the product's name, one stylesheet, no script and no external asset.
 * Accessible by construction: `lang`, one <h1>, labels on every field, a visible focus ring, text and
 * buttons above WCAG AA contrast (4.5:1) in light and dark mode, readable on a phone.
 */
export const PRODUCT_NAME = 'Accounting API';

export const escapeHtml = (s: string) =>
  s.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);

const STYLE = `:root{color-scheme:light dark;--fg:#1b2240;--muted:#4a5170;--bg:#f4f5f9;--card:#fff;--line:#d5d8e3;--accent:#1d4ed8;--on-accent:#fff;--error:#b00020}
@media (prefers-color-scheme:dark){:root{--fg:#e8eaf2;--muted:#b4b9cc;--bg:#12141c;--card:#1c1f2b;--line:#3a3f52;--accent:#8fb0ff;--on-accent:#0b1020;--error:#ff8a80}}
*{box-sizing:border-box}body{margin:0;background:var(--bg);color:var(--fg);font:16px/1.5 system-ui,-apple-system,"Segoe UI",sans-serif}
header{padding:.75rem 1rem;border-bottom:1px solid var(--line);background:var(--card)}header a{color:var(--fg);font-weight:600;text-decoration:none}
main{max-width:34rem;margin:2rem auto;padding:1.5rem;background:var(--card);border:1px solid var(--line);border-radius:8px}
main.wide{max-width:46rem}h1{font-size:1.5rem;margin:0 0 1rem}h2{font-size:1.1rem;margin:1.5rem 0 .5rem}
a{color:var(--accent)}p,ul{margin:.5rem 0}ul{padding-left:1.2rem}li{margin:.25rem 0}.muted{color:var(--muted)}
label{display:block;margin:.9rem 0 .25rem;font-weight:600}input[type=email],input[type=password]{width:100%;padding:.55rem .6rem;font:inherit;color:var(--fg);background:var(--card);border:1px solid var(--muted);border-radius:6px}
button{margin:1.2rem .5rem 0 0;padding:.55rem 1.3rem;font:inherit;border-radius:6px;border:1px solid var(--accent);background:var(--card);color:var(--accent);cursor:pointer}
button.primary,button[type=submit]:first-of-type{background:var(--accent);color:var(--on-accent)}
:focus-visible{outline:3px solid var(--accent);outline-offset:2px}.error{color:var(--error);font-weight:600}
code,pre{font:.9em ui-monospace,SFMono-Regular,Menlo,Consolas,monospace}pre{padding:.75rem;overflow-x:auto;background:var(--bg);border:1px solid var(--line);border-radius:6px}
dl{display:grid;grid-template-columns:max-content 1fr;gap:.25rem 1rem;margin:.5rem 0}dt{font-weight:600}dd{margin:0}`;
const STYLE_HASH = hashSource(STYLE);

/** The whole page: product bar, <main> with the title as its <h1>, the body. */
export function renderPage(title: string, body: string, options: { wide?: boolean } = {}): string {
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(title === PRODUCT_NAME ? title : `${title} · ${PRODUCT_NAME}`)}</title>
<style>${STYLE}</style>
</head><body><header><a href="/">${PRODUCT_NAME}</a></header>
<main${options.wide ? ' class="wide"' : ''}><h1>${escapeHtml(title)}</h1>
${body}
</main></body></html>`;
}

/**
 * Sends a page: its one <style> allowed by hash, no script (oauthPagePolicy). `formAction`: where its
 * form may be submitted, counting the redirects after the submission (none when the page has no
 * form). CORP same-origin: the pages may show who is signed in, and no other origin has a reason to
 * load them as a resource. Not cached (they carry CSRF tokens, sign-in state, the demo login).
 */
export function sendPage(res: Response, status: number, title: string, body: string, options: { formAction?: string[]; wide?: boolean } = {}): void {
  res.setHeader('Cache-Control', 'no-store');
  res.setHeader('Content-Security-Policy', serializePolicy(oauthPagePolicy(STYLE_HASH, options.formAction ?? [])));
  res.setHeader('Cross-Origin-Resource-Policy', 'same-origin');
  res.status(status).type('html').send(renderPage(title, body, options));
}
