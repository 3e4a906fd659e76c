// The overhead bench's yardstick: graphql-yoga with nothing added, on Node's http server.
import { createServer } from 'node:http';
import { createSchema, createYoga } from 'graphql-yoga';

const yoga = createYoga({ schema: createSchema({ typeDefs: 'type Query { hello: String }' }), logging: false });
createServer(yoga).listen(Number(process.env.PORT), '127.0.0.1');
