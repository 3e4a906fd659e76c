/** What a person sees first in GraphiQL: how to get a token, and a query to run with it. */
export const GRAPHIQL_DEFAULT_QUERY = `# Welcome to the accounting API.
#
# 1. Get a token (in a terminal):
#      curl -s -X POST http://localhost:3000/v2/oauth/login \\
#        -H 'Content-Type: application/json' \\
#        -d '{"email":"demo@example.no","password":"demo-password"}'
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
