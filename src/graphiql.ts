import type { Request, RequestHandler, Response, NextFunction } from 'express';
import type { GraphiQLOptions } from 'graphql-yoga';
import { GRAPHIQL_CLIENT_ID } from './modules/oauth/provider.ts';
import { graphiqlSignInScript, type SignInConfig } from './graphiql-signin.ts';
import { graphiqlPolicy, hashSource, serializePolicy } from './http/security-headers.ts';
import { precompressed, sendPrecompressed } from './http/compression.ts';

/** The demo the server knows of (seeded on this database): its login and its company. */
export interface DemoInfo {
  email: string;
  password: string;
  clientAccountId: number;
  companyName: string;
}

/**
 * What a person sees first in GraphiQL: a query that runs once signed in, and how to sign in. With
 * the demo seeded the query also reads the demo company's chart of accounts (its id). Comment lines
 * stay within 46 characters, what the editor shows beside the result pane in a 1280 px window.
 */
export const graphiqlDefaultQuery = (demo?: DemoInfo | null): string => {
  const head = [
    '# Accounting API: GraphQL',
    '#',
    '# 1. Click "Sign in" (top right).',
    demo ? `#    Demo: ${demo.email} / ${demo.password}` : '#    Users: npm run admin -- create-user',
    '# 2. Run this tab: ▶ or Ctrl+Enter.',
    '#',
    '# Ctrl+Space completes a field; the Docs',
    '# pane (book icon, left) lists them all.',
    '# Your own token instead of the sign-in:',
    '# Headers tab below, {"Authorization":',
    '#   "Bearer <token>"} (POST /v2/oauth/login)',
    '',
  ];
  const company = demo
    ? [
        `  # the demo company (client account ${demo.clientAccountId}):`,
        `  # ${demo.companyName}`,
        '  # the next five: first: 5, after: <endCursor>',
        `  accounts(clientAccountId: ${demo.clientAccountId}, first: 5) {`,
        '    nodes { code name accountType }',
        '    pageInfo { hasNextPage endCursor }',
        '  }',
      ]
    : ['  # each id is a clientAccountId for other queries'];
  return [...head, 'query FirstSteps {', '  me {', '    user { email firstName lastName }', '    clientAccounts { id displayName }', '  }', ...company, '}', ''].join('\n');
};

/** How the GraphiQL page signs in: the first-party public client and the OAuth endpoints on BASE_URL. */
export const graphiqlSignInConfig = (baseUrl: string): SignInConfig => ({
  clientId: GRAPHIQL_CLIENT_ID,
  scope: 'read write',
  redirectUri: `${baseUrl}/graphql`,
  authorizeUrl: `${baseUrl}/public/v2/oauth/authorize`,
  tokenUrl: `${baseUrl}/public/v2/oauth/token`,
  revokeUrl: `${baseUrl}/public/v2/oauth/revoke`,
});

/** What the GraphiQL page is: its HTML and the headers its response gets. */
export interface BuiltGraphiQLPage {
  html: string;
  /** Content-Security-Policy (with the hashes of the page's inline scripts) and Cross-Origin-Opener-Policy */
  headers: Record<string, string>;
}

/**
 * GraphiQL's options as the page reads them. `query` (which @graphql-yoga/graphiql still reads, below
 * a `?query=` in the URL) opens the first visit, and every visit without a query in its URL, on the
 * tab holding that query: GraphiQL matches the stored tabs against it and adds it as a tab when none
 * holds it. Without it, a visit with stored tabs (the return from the sign-in) matched no tab against
 * an empty query and opened a new empty `<untitled>` tab.
 */
export type GraphiQLPageOptions = GraphiQLOptions & { title?: string; query?: string };

/**
 * The GraphiQL page of one app, answered here rather than by yoga: as yoga decides it (GET whose
 * Accept names text/html), built on the first view and kept, and sent compressed (br or gzip) from
 * bytes compressed once: 9 MB of HTML is about 2 MB of brotli, which costs 0.5 s of CPU to make.
 */
export function graphiqlPage(options: GraphiQLPageOptions, baseUrl: string): { serve: RequestHandler } {
  let built: Promise<{ page: BuiltGraphiQLPage; body: ReturnType<typeof precompressed> }> | undefined;
  const build = () =>
    (built ??= buildGraphiQLPage(options, baseUrl).then(
      (page) => ({ page, body: precompressed(page.html) }),
      (e: unknown) => {
        built = undefined; // the next view tries again
        throw e;
      },
    ));
  return {
    serve: (req: Request, res: Response, next: NextFunction) => {
      if (req.method !== 'GET' || !req.get('accept')?.includes('text/html')) return next();
      build()
        .then(({ page, body }) => {
          for (const [name, value] of Object.entries(page.headers)) res.setHeader(name, value);
          res.setHeader('Content-Type', 'text/html; charset=utf-8');
          res.setHeader('Cache-Control', 'no-cache');
          return sendPrecompressed(req, res, body);
        })
        .catch(next);
    },
  };
}

/**
 * The GraphiQL page with the sign-in script (graphiql-signin.ts) at the end of <head> (after the
 * charset), so that it wraps fetch and takes `?code&state` out of the URL before GraphiQL loads.
 * GraphiQL itself is @graphql-yoga/render-graphiql: its scripts and styles are inside the page (about
 * 9 MB), so GraphiQL works without internet access (yoga's default loads them from unpkg). It is
 * imported on the first page view only. The page's CSP allows exactly its inline scripts, by hash.
 */
export async function buildGraphiQLPage(options: GraphiQLPageOptions, baseUrl: string): Promise<BuiltGraphiQLPage> {
  const { renderGraphiQL } = await import('@graphql-yoga/render-graphiql');
  const page = renderGraphiQL(options);
  const end = page.indexOf('</head>');
  if (end < 0) throw new Error('GraphiQL page without </head>: update buildGraphiQLPage');
  const html = `${page.slice(0, end)}<script>${graphiqlSignInScript(graphiqlSignInConfig(baseUrl))}</script>${page.slice(end)}`;
  return {
    html,
    headers: {
      'Content-Security-Policy': serializePolicy(graphiqlPolicy(inlineScripts(html).map(hashSource), baseUrl)),
      // the page holds the signed-in person's tokens: no window of another origin keeps a handle on it
      'Cross-Origin-Opener-Policy': 'same-origin',
    },
  };
}

/**
 * The text of each inline <script> of a page, as the browser's HTML parser delimits it: from
 * `<script>` to the next `</script`. (The parser differs only after `<!--` followed by `<script` in a
 * script, the "double escaped" state: refused here, since the hash would not be the browser's.) A
 * <script> with attributes is refused too: its hash or source would need thought.
 */
export function inlineScripts(html: string): string[] {
  const scripts: string[] = [];
  const open = /<script\b([^>]*)>/gi;
  for (let m = open.exec(html); m; m = open.exec(html)) {
    if (m[1].trim()) throw new Error(`GraphiQL page with <script${m[1]}>: only plain inline scripts are allowed by hash; update inlineScripts`);
    const start = m.index + m[0].length;
    const close = html.slice(start).search(/<\/script[\s/>]/i);
    if (close < 0) throw new Error('GraphiQL page with an unclosed <script>');
    const text = html.slice(start, start + close);
    const comment = text.indexOf('<!--');
    if (comment >= 0 && /<script[\s/>]/i.test(text.slice(comment))) throw new Error('GraphiQL page with <!-- and <script inside a script: its end is not where inlineScripts finds it');
    scripts.push(text.replace(/\r\n?/g, '\n')); // the parser's newline normalization comes before hashing
    open.lastIndex = start + close;
  }
  return scripts;
}
