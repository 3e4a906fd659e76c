import type { Request, Response } from 'express';
import type { DemoInfo } from './graphiql.ts';
import { escapeHtml, PRODUCT_NAME, sendPage } from './http/page.ts';
import { PACKAGE_VERSION } from './version.ts';

/**
 * GET / : where a first visit lands. A browser gets a small page (the links of the start banner and,
 * when the demo is seeded, its login and company); any other client (curl's `*` / `*`, a JSON Accept)
 * gets the same links as JSON. Links are relative to the host the page was opened under; the curl
 * lines name BASE_URL.
 */
export const LINKS = {
  graphiql: { path: '/graphql', label: 'GraphiQL', note: 'GraphQL in the browser: sign in, then run the first tab' },
  docs: { path: '/api/v2/docs', label: 'REST docs', note: 'every /api/v2 path, with "Try it out" (Authorize first)' },
  openapi: { path: '/api/v2/openapi.json', label: 'OpenAPI document', note: 'OpenAPI 3.1 of the REST paths' },
  oauth: { path: '/.well-known/oauth-authorization-server', label: 'OAuth 2.0 metadata', note: 'authorization code + PKCE, client credentials' },
  mcp: { path: '/mcp', label: 'MCP', note: 'tools for AI agents (POST only; OAuth discovery from its 401)' },
  health: { path: '/health', label: 'Health', note: 'for load balancers' },
} as const;

export function landingPage(demo: DemoInfo | null, baseUrl: string) {
  const json = {
    name: PRODUCT_NAME,
    version: PACKAGE_VERSION,
    links: Object.fromEntries(Object.entries(LINKS).map(([name, l]) => [name, l.path])),
    token: 'POST /v2/oauth/login {"email", "password"}',
    ...(demo ? { demo: { email: demo.email, password: demo.password, client_account_id: demo.clientAccountId, company: demo.companyName } } : {}),
  };
  const links = Object.values(LINKS)
    .map((l) => `<li><a href="${l.path}">${escapeHtml(l.label)}</a> <span class="muted">— ${escapeHtml(l.note)}</span></li>`)
    .join('\n');
  const login = JSON.stringify({ email: demo?.email ?? '<you>', password: demo?.password ?? '<yours>' });
  const body = `<p>Bookkeeping and accounting for Norwegian companies and their accounting firms: one GraphQL schema, the documented REST paths and MCP tools over it. Version ${escapeHtml(PACKAGE_VERSION)}.</p>
<h2>Start here</h2>
<ul>
${links}
</ul>
${
  demo
    ? `<h2>Demo login</h2>
<dl><dt>Email</dt><dd><code>${escapeHtml(demo.email)}</code></dd><dt>Password</dt><dd><code>${escapeHtml(demo.password)}</code></dd>
<dt>Company</dt><dd>${escapeHtml(demo.companyName)}, client account <code>${demo.clientAccountId}</code></dd></dl>
<p>Sign in with it in <a href="/graphql">GraphiQL</a>, or get a token for REST and MCP:</p>`
    : `<h2>Sign in</h2>
<p>No demo on this database: create a user with <code>npm run admin -- create-user</code>, then sign in in <a href="/graphql">GraphiQL</a> or get a token:</p>`
}
<pre>curl -s -X POST ${escapeHtml(baseUrl)}/v2/oauth/login \\
  -H 'Content-Type: application/json' \\
  -d '${escapeHtml(login)}'</pre>${
    demo
      ? `
<pre>curl -s -H "Authorization: Bearer $TOKEN" \\
  '${escapeHtml(baseUrl)}/api/v2/items?client_account_id=${demo.clientAccountId}'</pre>`
      : ''
  }`;
  return (req: Request, res: Response) => {
    res.vary('Accept');
    if (req.accepts(['application/json', 'text/html']) === 'text/html') return sendPage(res, 200, PRODUCT_NAME, body, { wide: true });
    res.setHeader('Cache-Control', 'no-store');
    res.json(json);
  };
}
