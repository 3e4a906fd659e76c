import type { GraphQLSchema } from 'graphql';
import { assistantSchema, useSchema } from './schema-registry.ts';
import { onMessagePublished, type MessageListener } from '../modules/chat/message-events.ts';
import { codeBlocksOfKind } from '../modules/chat/code-blocks.ts';
import { approveCodeAction, runCodeAction } from './code-actions.ts';
import { mentionsAssistant, writeApproved } from './assistant.service.ts';
import { askAssistant } from './assistant.job.ts';

/**
 * What a published chat message sets off (after its transaction has committed, as its poster):
 *
 * - an ```approvecodeaction block: the thread's last code action is written (code-actions.ts);
 * - otherwise a ```codeaction block: it is previewed, and written when nothing needs approval;
 * - approves_message_id: the approved PREVIEW's changing tool calls are written (assistant.service.ts);
 * - `@assistant` in the text: the assistant is asked (a job; its reply comes later).
 *
 * Code actions and approvals run before the poster's response is sent, so the result message is there
 * when the POST answers. Messages of the assistant and the system (from_user_id null) set off nothing.
 */
/**
 * Starts the assistant on `schema` (src/schema.ts calls it once, having built the schema; the
 * assistant imports no schema itself, so the schema's modules never import the assistant).
 */
export function registerAssistant(schema: GraphQLSchema): void {
  if (!useSchema(schema)) return;
  onMessagePublished(onPublished);
}

const onPublished: MessageListener = async (ctx, thread, message) => {
  if (message.fromUserId === null) return;
  const schema = assistantSchema();
  if (codeBlocksOfKind(message.message, 'approvecodeaction').length) await approveCodeAction(ctx, schema, thread, message);
  else if (codeBlocksOfKind(message.message, 'codeaction').length) await runCodeAction(ctx, schema, thread, message);
  if (message.approvesMessageId !== null) await writeApproved(ctx, schema, thread, message);
  if (mentionsAssistant(message.message)) await askAssistant(ctx, thread, message);
};
