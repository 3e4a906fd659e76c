import type { GraphiQLOptions } from 'graphql-yoga';
import { DEMO_LOGIN } from './admin/seed-demo.ts';
import { GRAPHIQL_CLIENT_ID } from './modules/oauth/provider.ts';
import { graphiqlSignInScript, type SignInConfig } from './graphiql-signin.ts';

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

const pages = new Map<string, string>();

/**
 * The GraphiQL page with the sign-in script (graphiql-signin.ts) at the end of <head> (after the
 * charset), so that it wraps fetch and takes `?code&state` out of the URL before GraphiQL loads.
 * GraphiQL itself is @graphql-yoga/render-graphiql: its scripts and styles are inside the page (about
 * 9 MB), so GraphiQL works without internet access (yoga's default loads them from unpkg). It is
 * imported on the first page view only, and each page is built once per set of options.
 */
export async function renderGraphiQLWithSignIn(options: GraphiQLOptions, baseUrl: string): Promise<string> {
  const key = JSON.stringify([options, baseUrl]);
  const cached = pages.get(key);
  if (cached) return cached;
  const { renderGraphiQL } = await import('@graphql-yoga/render-graphiql');
  const page = renderGraphiQL(options);
  const end = page.indexOf('</head>');
  if (end < 0) throw new Error('GraphiQL page without </head>: update renderGraphiQLWithSignIn');
  const withSignIn = `${page.slice(0, end)}<script>${graphiqlSignInScript(graphiqlSignInConfig(baseUrl))}</script>${page.slice(end)}`;
  pages.set(key, withSignIn);
  return withSignIn;
}
