import type { ChatMessage, ChatThread } from '../../generated/prisma/client.ts';
import type { RequestContext } from '../../shared/context.ts';

/**
 * Message listeners: what reacts to a chat message being published (the assistant branch's code
 * actions and tool-calling assistant register here). The contract:
 *
 * - A listener is called with (ctx, thread, message) once per message when the message is published,
 *   i.e. becomes visible to the thread: posted with is_draft false (POST …/messages, a thread's
 *   `messages` on POST /chat/threads, `postMessage`), or a draft sent by PATCH (is_draft false).
 *   Drafts are never passed. `message` is the stored row (its `message` text raw, code blocks
 *   included; read them with code-blocks.ts), `thread` the thread's row as it was when the message
 *   was published.
 * - It runs AFTER the transaction that published the message has committed (src/shared/context.ts
 *   `afterCommit`), with the request's context outside that transaction: the caller's actor and
 *   tenancy, `ctx.db` the plain client. It runs before the request's response is sent, listeners one
 *   after another in the order they registered: keep it short and enqueue a job (src/jobs/) for slow
 *   work such as a model call.
 * - A listener that throws is logged; the request that published the message still succeeds (its
 *   write is committed) and the next listeners still run.
 * - A listener may post further messages with `postMessage(ctx, threadId, {...})` (chat.service.ts),
 *   which also takes the columns the public input does not (tool_calls, tool_results, previews,
 *   tool_mode, action_items, action_mode, action_error, from_user_id null for the assistant). Those
 *   messages are published too, so listeners see them: a listener must recognise what it posted
 *   itself (e.g. tool_mode set, from_user_id null) or post with `{ notify: false }`.
 */
export type MessageListener = (ctx: RequestContext, thread: ChatThread, message: ChatMessage) => Promise<void> | void;

const listeners: MessageListener[] = [];

/** Registers a listener (at module load, once); returns what unregisters it (tests). */
export function onMessagePublished(listener: MessageListener): () => void {
  listeners.push(listener);
  return () => {
    const at = listeners.indexOf(listener);
    if (at !== -1) listeners.splice(at, 1);
  };
}

/** Calls every listener with the published message; a failure is logged, never thrown. */
export async function notifyMessagePublished(ctx: RequestContext, thread: ChatThread, message: ChatMessage): Promise<void> {
  for (const listener of [...listeners]) {
    try {
      await listener(ctx, thread, message);
    } catch (e) {
      ctx.logger.error({ err: e, threadId: thread.id, messageId: message.id }, 'a chat message listener failed');
    }
  }
}
