import { DEMO_LOGIN } from './admin/seed-demo.ts';

/** What a person sees first in GraphiQL: how to get a token, and a query to run with it. */
export const graphiqlDefaultQuery = (baseUrl: string): string => `# Welcome to the accounting API.
#
# 1. Get a token (in a terminal):
#      curl -s -X POST ${baseUrl}/v2/oauth/login \\
#        -H 'Content-Type: application/json' \\
#        -d '{"email":"${DEMO_LOGIN.email}","password":"${DEMO_LOGIN.password}"}'   (the demo login on a new embedded database)
# 2. Open the Headers tab below and set
#      {"Authorization": "Bearer <access_token>"}
# 3. Run this query.

query Me {
  me {
    user { id email firstName lastName }
    clientAccounts { id displayName organizationNumber isProvider }
  }
}
`;
