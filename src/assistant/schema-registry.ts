import type { GraphQLSchema } from 'graphql';

// The GraphQL schema the assistant runs on, registered by src/schema.ts once it is built
// (registerAssistant in chat-listener.ts): the assistant never imports the schema, whose modules
// would then load the assistant.

let registered: GraphQLSchema | null = null;

/** The schema the assistant's tool calls and code actions run on (registered by src/schema.ts). */
export function assistantSchema(): GraphQLSchema {
  if (!registered) throw new Error('the assistant runs on the GraphQL schema: load src/schema.ts first (it registers itself here)');
  return registered;
}

/** Registers the schema; false when one is registered already. */
export function useSchema(schema: GraphQLSchema): boolean {
  if (registered) return false;
  registered = schema;
  return true;
}
