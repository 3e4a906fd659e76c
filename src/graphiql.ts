import type { GraphiQLOptions, Plugin } from 'graphql-yoga';
import { DEMO_LOGIN } from './admin/seed-demo.ts';
import { GRAPHIQL_CLIENT_ID } from './modules/oauth/provider.ts';
import { graphiqlSignInScript, type SignInConfig } from './graphiql-signin.ts';
import { graphiqlPolicy, hashSource, serializePolicy } from './http/security-headers.ts';

/** What a person sees first in GraphiQL: how to get a token, and a query to run with it. */
export const graphiqlDefaultQuery = (baseUrl: string): string => `# Click "Sign in" (top right) to run queries as yourself, or get a token from a terminal (below).
#
# Signed in, your requests carry your token; run this query.
#
# From a terminal instead:
#      curl -s -X POST ${baseUrl}/v2/oauth/login \\
#        -H 'Content-Type: application/json' \\
#        -d '{"email":"${DEMO_LOGIN.email}","password":"${DEMO_LOGIN.password}"}'   (the demo login on a new embedded database)
#    then set in the Headers tab below (a token set there wins over the sign-in)
#      {"Authorization": "Bearer <access_token>"}

query Me {
  me {
    user { id email firstName lastName }
    clientAccounts { id displayName organizationNumber isProvider }
  }
}
`;

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

/** The GraphiQL page of one app: yoga's `graphiql` options, its `renderGraphiQL` and a plugin giving the page its headers. */
export interface GraphiQLPage {
  options: GraphiQLOptions;
  render(): Promise<string>;
  plugin: Plugin;
}

/**
 * The GraphiQL page, built on the first view and kept (the same options every time). The plugin puts
 * its headers on yoga's answer when that is the page (yoga answers text/html for GraphiQL only).
 */
export function graphiqlPage(options: GraphiQLOptions, baseUrl: string): GraphiQLPage {
  let built: Promise<BuiltGraphiQLPage> | undefined;
  const build = () =>
    (built ??= buildGraphiQLPage(options, baseUrl).catch((e: unknown) => {
      built = undefined; // the next view tries again
      throw e;
    }));
  return {
    options,
    render: async () => (await build()).html,
    plugin: {
      async onResponse({ response }) {
        if (!response.headers.get('content-type')?.startsWith('text/html')) return;
        for (const [name, value] of Object.entries((await build()).headers)) response.headers.set(name, value);
      },
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
export async function buildGraphiQLPage(options: GraphiQLOptions, baseUrl: string): Promise<BuiltGraphiQLPage> {
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
