import { z } from 'zod';
import { actionItemShape, toolCallShape, toolPreviewShape, toolResultShape } from './tool-shapes.ts';
import { orderByNames, pageArgs, type PageLimits } from '../../shared/pagination.ts';
import { relationPairIssue, relationType } from '../../shared/record-relations.ts';
import { evenWithIssues, filterText, flag, id, optionalText } from '../../shared/validation.ts';

/** GET /chat/threads: page 1, per_page 100 (spec 002); at most 1000. */
export const THREAD_PAGE_LIMITS: PageLimits = { defaultPerPage: 100, maxPerPage: 1000 };
/** GET /chat/threads/{id}/messages (designed here): per_page 100, at most 1000. */
export const MESSAGE_PAGE_LIMITS: PageLimits = { defaultPerPage: 100, maxPerPage: 1000 };

/** The longest message text a client may send (the JSON body limit is 1 MB). */
export const MAX_MESSAGE_LENGTH = 50_000;
/** The most files one message carries, and the most messages POST /chat/threads takes. */
export const MAX_ATTACHMENTS = 20;
export const MAX_THREAD_MESSAGES = 50;

/** order_by of GET /chat/threads: the public names and the column each sorts by. */
export const THREAD_ORDER = {
  id: 'id',
  created_at: 'created_at',
  updated_at: 'updated_at',
  last_message_created_at: 'last_message_created_at',
  subject: 'subject',
} as const;
/** Latest activity first: threads by their newest message, threads without one by their creation. */
export const DEFAULT_THREAD_ORDER = ['-last_message_created_at', '-created_at'];

/** order_by of the messages list: oldest first unless -created_at. */
export const MESSAGE_ORDER = { id: 'id', created_at: 'createdAt' } as const;
export const DEFAULT_MESSAGE_ORDER = ['created_at'];

/** The body of one message as a client sends it (POST …/messages, and each of POST /chat/threads' `messages`). */
const messageBody = z
  .object({
    message: z.string().max(MAX_MESSAGE_LENGTH, `must be at most ${MAX_MESSAGE_LENGTH} characters`).nullish(),
    /** default false */
    isDraft: flag,
    /** a PREVIEW message (tool_mode PREVIEW) of the same thread that no message approves yet */
    approvesMessageId: id.nullish(),
    /** files uploaded with type CHAT_ATTACHMENT (images or PDF) by the sender for the thread's client account, not yet attached; a file named twice is attached once */
    attachmentIds: z
      .array(id)
      .transform((ids) => [...new Set(ids)])
      .pipe(z.array(id).max(MAX_ATTACHMENTS, `must name at most ${MAX_ATTACHMENTS} files`))
      .nullish(),
  })
  .superRefine((m, ctx) => {
    const hasText = typeof m.message === 'string' && m.message.trim() !== '';
    if (!hasText && m.approvesMessageId == null && !m.attachmentIds?.length) {
      ctx.issues.push({ code: 'custom', input: m.message, path: ['message'], message: 'is required unless approves_message_id or attachment_ids is given' });
    }
    if (m.isDraft && m.approvesMessageId != null) ctx.issues.push({ code: 'custom', input: m.isDraft, path: ['isDraft'], message: 'an approval (approves_message_id) cannot be a draft' });
  }, evenWithIssues);

/** Columns only trusted in-process callers write (postMessage): the assistant's tool calls and the legacy code actions. */
/** The columns in the shapes the assistant publishes (src/modules/chat/tool-shapes.ts): the GraphQL types read them so. */
export const trustedMessageFields = z.object({
  /** default: the caller; null for a message of the assistant */
  fromUserId: id.nullish(),
  toolCalls: z.array(toolCallShape).nullish(),
  toolResults: z.array(toolResultShape).nullish(),
  /** each entry with need_approval (boolean) */
  previews: z.array(toolPreviewShape).nullish(),
  toolMode: z.enum(['PREVIEW', 'WRITE']).nullish(),
  /** legacy: preview objects {type, needs_approval, id} from coderesult blocks */
  actionItems: z.array(actionItemShape).nullish(),
  actionMode: z.enum(['preview', 'write']).nullish(),
  actionError: z.boolean().nullish(),
  /** false: do not call the message listeners (a listener posting its own answer) */
  notify: z.boolean().nullish(),
});

/** A message from a trusted caller: the public body with the trusted columns; a tool message needs no text. */
export const trustedMessage = z
  .object({
    message: z.string().nullish(),
    isDraft: flag,
    approvesMessageId: id.nullish(),
    attachmentIds: z.array(id).nullish(),
    ...trustedMessageFields.shape,
  })
  .superRefine((m, ctx) => {
    const hasContent =
      (typeof m.message === 'string' && m.message.trim() !== '') ||
      m.approvesMessageId != null ||
      !!m.attachmentIds?.length ||
      m.toolCalls != null ||
      m.previews != null ||
      m.actionItems != null;
    if (!hasContent) ctx.issues.push({ code: 'custom', input: m.message, path: ['message'], message: 'is required unless the message approves, attaches or records tool calls' });
  }, evenWithIssues);
export type TrustedMessage = z.input<typeof trustedMessage>;

const threadFields = {
  subject: optionalText(500),
  isCompleted: flag,
  isArchived: flag,
};

/** The inputs of every chat operation (the GraphQL fields' arguments). */
export const chatRules = {
  listThreads: z.object({
    clientAccountId: id.nullish(),
    providerClientAccountId: id.nullish(),
    relationType,
    relationId: id.nullish(),
    /** every word (case-insensitive, part of a word) in the subject or a visible message of the thread */
    freeText: filterText,
    isCompleted: z.boolean().nullish(),
    isArchived: z.boolean().nullish(),
    orderBy: orderByNames(THREAD_ORDER),
    ...pageArgs,
  }),
  createThread: z.object({
    input: z
      .object({
        clientAccountId: id,
        providerClientAccountId: id.nullish(),
        relationType,
        relationId: id.nullish(),
        ...threadFields,
        messages: z.array(messageBody).max(MAX_THREAD_MESSAGES, `must hold at most ${MAX_THREAD_MESSAGES} messages`).nullish(),
      })
      .superRefine((t, ctx) => {
        const issue = relationPairIssue(t.relationType, t.relationId);
        if (issue) ctx.issues.push({ code: 'custom', input: undefined, path: [issue.path], message: issue.message });
      }, evenWithIssues),
  }),
  updateThread: z.object({ id, input: z.object(threadFields) }),
  listMessages: z.object({ threadId: id, orderBy: orderByNames(MESSAGE_ORDER), ...pageArgs }),
  createMessage: z.object({ threadId: id, input: messageBody }),
  updateMessage: z.object({
    threadId: id,
    messageId: id,
    /** message and is_draft only; omitted fields keep their value */
    input: z.object({
      message: z.string().max(MAX_MESSAGE_LENGTH, `must be at most ${MAX_MESSAGE_LENGTH} characters`).nullish(),
      isDraft: flag,
    }),
  }),
  listParticipants: z.object({ threadId: id }),
  addParticipant: z.object({ threadId: id, input: z.object({ userId: id }) }),
};
