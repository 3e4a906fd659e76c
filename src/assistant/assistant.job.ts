import { defineJob, enqueue } from '../jobs/jobs.ts';
import { assistantSchema } from './schema-registry.ts';
import type { ChatMessage, ChatThread } from '../generated/prisma/client.ts';
import { createRequestContext, type RequestContext, type Scope } from '../shared/context.ts';

export interface AssistantReplyJobData {
  threadId: number;
  /** the message that asked */
  messageId: number;
  /** who asked, and the scopes of the request that asked: the tool calls run as this user */
  userId: number;
  scopes: Scope[];
}

/**
 * The model call of the chat assistant, after the asking message's transaction has committed. It
 * acts as the asker (a 'delegated' actor: the asker's tenancy and scopes, not the system's). No
 * retries: a failure is answered in the thread, and a second run would answer twice.
 */
export const assistantReplyJob = defineJob<AssistantReplyJobData>(
  'chat.assistant-reply',
  async (data, { prisma, config, logger, service, job, signal }) => {
    // loaded when a reply is due, not with the job list (the admin CLI loads every job definition)
    const { replyToMessage } = await import('./assistant.service.ts');
    const schema = assistantSchema();
    const ctx = createRequestContext({
      db: prisma,
      actor: { userId: data.userId, scopes: new Set(data.scopes), clientId: null, tokenKind: 'delegated', sessionId: null },
      requestId: `job-${job.id}`,
      logger,
      files: service.files,
    });
    await replyToMessage(ctx, schema, config.assistant, data.threadId, data.messageId, signal);
  },
  { retryLimit: 0, expireInSeconds: 60 * 60, concurrency: 2 },
);

/** Asks the assistant to answer `message` as the context's actor (the listener calls it after the commit). */
export const askAssistant = (ctx: RequestContext, thread: ChatThread, message: ChatMessage) =>
  enqueue(ctx.db, assistantReplyJob, { threadId: thread.id, messageId: message.id, userId: ctx.actor.userId, scopes: [...ctx.actor.scopes] }, { singletonKey: `chat-assistant:${message.id}` });
