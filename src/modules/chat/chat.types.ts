import { cursorArgs, nodesQuery, pageType, windowArgs } from '../../shared/page-type.ts';
import { wholeList } from '../../shared/pagination.ts';
import { builder } from '../../builder.ts';
import { listCost, pageCost } from '../../shared/query-limits.ts';
import { accountAccess } from '../../shared/tenancy.ts';
import { storedFileFields } from '../files/files.types.ts';
import { loadUser, UserRef } from '../users/users.types.ts';
import { chatRules as rules, MAX_ATTACHMENTS, MESSAGE_PAGE_LIMITS, THREAD_PAGE_LIMITS } from './chat.rules.ts';
import {
  addChatParticipant,
  createChatMessage,
  createChatThread,
  getChatThread,
  listChatMessages,
  listChatParticipants,
  listChatThreads,
  updateChatMessage,
  updateChatThread,
} from './chat.service.ts';
import { HIDDEN_CONTENT } from './code-blocks.ts';
import { hideCodeBlockContents } from './code-blocks.ts';
import { ChatActionItemRef, ChatToolCallRef, ChatToolPreviewRef, ChatToolResultRef } from './chat-tools.types.ts';
import type { ActionItem, ToolCall, ToolPreview, ToolResult } from './tool-shapes.ts';
import { ASSUMED_CHANGES, MAX_TOOL_CALLS } from './tool-shapes.ts';

/** Chat (spec 002 "Chat thread, message, participant"). Business rules: chat.service.ts. */
export const ChatToolModeEnum = builder.enumType('ChatToolMode', {
  description: 'The run of the assistant’s tools a tool-calling message records: PREVIEW (nothing written; previews say what would be) or WRITE (executed)',
  values: ['PREVIEW', 'WRITE'] as const,
});

export const ChatThread = builder.prismaObject('ChatThread', {
  description:
    'A conversation about a client account, optionally about one record (relationType + relationId) and with the provider account serving it. ' +
    'Users of the client account, and of the provider account while it serves the client, may use it.',
  // the backstop of the service's check: the client or the provider account (the service also requires the provider link)
  runScopesOnType: true,
  authScopes: (thread, ctx) => {
    const client = accountAccess(ctx, thread.clientAccountId);
    const provider = thread.providerClientAccountId;
    if (provider == null) return client;
    const either = (a: boolean, b: boolean | Promise<boolean>) => a || b;
    return client instanceof Promise ? client.then((c) => either(c, accountAccess(ctx, provider))) : either(client, accountAccess(ctx, provider));
  },
  fields: (t) => ({
    id: t.exposeInt('id'),
    createdBy: t.field({ type: UserRef, nullable: true, resolve: (r, _a, ctx) => loadUser(ctx, r.createdById) }),
    createdById: t.exposeInt('createdById', { nullable: true }),
    createdAt: t.expose('createdAt', { type: 'DateTime' }),
    updatedAt: t.expose('updatedAt', { type: 'DateTime', description: 'Changes with the thread’s fields and with every published message' }),
    lastMessageCreatedAt: t.expose('lastMessageCreatedAt', { type: 'DateTime', nullable: true, description: 'created_at of the newest published (non-draft) message; null without one' }),
    clientAccount: t.relation('clientAccount'),
    clientAccountId: t.exposeInt('clientAccountId'),
    providerClientAccount: t.relation('providerClientAccount', { nullable: true }),
    providerClientAccountId: t.exposeInt('providerClientAccountId', { nullable: true, description: 'A provider account serving the client account' }),
    subject: t.exposeString('subject', { nullable: true }),
    relationType: t.exposeString('relationType', { nullable: true, description: 'What the thread is about: document, businesspartner, voucher, task (a task’s thread) …' }),
    relationId: t.exposeInt('relationId', { nullable: true }),
    isCompleted: t.exposeBoolean('isCompleted'),
    isArchived: t.exposeBoolean('isArchived'),
    participants: t.relation('participants', { extensions: listCost(100), query: { orderBy: [{ createdAt: 'asc' }, { id: 'asc' }] } }),
  }),
});

/** A chat message's attachment: the file record and its presigned URLs (shown to everyone who may read the thread). */
const ChatAttachment = builder.prismaObject('StoredFile', {
  variant: 'ChatAttachment',
  description: 'A file attached to a chat message (uploaded with type CHAT_ATTACHMENT). Its URLs are presigned and expire one hour after the response.',
  fields: (t) => ({
    ...storedFileFields(t),
    clientAccount: t.relation('clientAccount'),
    chatMessage: t.relation('chatMessage', { nullable: true }),
    chatMessageId: t.exposeInt('chatMessageId', { nullable: true }),
  }),
});

export const ChatMessage = builder.prismaObject('ChatMessage', {
  description: `A message of a chat thread. Its text shows the contents of codeaction and coderesult blocks as ${HIDDEN_CONTENT}.`,
  fields: (t) => ({
    id: t.exposeInt('id'),
    thread: t.relation('thread'),
    threadId: t.exposeInt('threadId'),
    fromUserId: t.exposeInt('fromUserId', { nullable: true, description: 'Who the message is from (the last to edit it); null for the assistant' }),
    fromUser: t.field({ type: UserRef, nullable: true, resolve: (m, _a, ctx) => loadUser(ctx, m.fromUserId) }),
    message: t.string({
      nullable: true,
      description: `Markdown; the contents of codeaction and coderesult blocks read ${HIDDEN_CONTENT}. Null for a message that only approves or attaches`,
      resolve: (m) => hideCodeBlockContents(m.message),
    }),
    isDraft: t.exposeBoolean('isDraft', { description: 'A draft is visible to its sender and its creator only' }),
    createdAt: t.expose('createdAt', { type: 'DateTime', description: 'When it was posted; for a draft that was sent later, when it was sent' }),
    createdBy: t.field({ type: UserRef, nullable: true, resolve: (r, _a, ctx) => loadUser(ctx, r.createdById) }),
    createdById: t.exposeInt('createdById', { nullable: true }),
    updatedAt: t.expose('updatedAt', { type: 'DateTime' }),
    actionItems: t.field({
      type: [ChatActionItemRef],
      extensions: listCost(ASSUMED_CHANGES),
      description: 'Legacy code actions: the preview objects {type, needs_approval, id} of the message’s coderesult blocks ([] for others)',
      resolve: (m) => (m.actionItems as ActionItem[] | null) ?? [],
    }),
    actionMode: t.exposeString('actionMode', { nullable: true, description: 'Legacy code actions: preview or write; null for other messages' }),
    actionError: t.exposeBoolean('actionError', { description: 'Legacy code actions: the run reported an error' }),
    toolCalls: t.field({
      type: [ChatToolCallRef],
      nullable: true,
      extensions: listCost(MAX_TOOL_CALLS),
      description: 'The assistant’s tool calls (OpenAI’s shape); null for ordinary messages',
      resolve: (m) => m.toolCalls as ToolCall[] | null,
    }),
    toolResults: t.field({
      type: [ChatToolResultRef],
      nullable: true,
      extensions: listCost(MAX_TOOL_CALLS),
      description: 'What the tool calls returned, one per call; null for ordinary messages',
      resolve: (m) => m.toolResults as ToolResult[] | null,
    }),
    previews: t.field({
      type: [ChatToolPreviewRef],
      nullable: true,
      extensions: listCost(ASSUMED_CHANGES),
      description: 'What the calls would change (PREVIEW) or changed (WRITE), each entry with need_approval; null for ordinary messages',
      resolve: (m) => m.previews as ToolPreview[] | null,
    }),
    toolMode: t.expose('toolMode', { type: ChatToolModeEnum, nullable: true, description: 'PREVIEW or WRITE for a tool-calling message; null otherwise' }),
    approvesMessage: t.relation('approvesMessage', { nullable: true }),
    approvesMessageId: t.exposeInt('approvesMessageId', { nullable: true, description: 'The PREVIEW message this message approves' }),
    approvedByMessage: t.relation('approvedBy', { nullable: true, description: 'For a PREVIEW message: the message that approved it, null while unapproved' }),
    approvedByMessageId: t.int({
      nullable: true,
      description: 'For a PREVIEW message: the message that approved it, null while unapproved',
      select: { approvedBy: { select: { id: true } } },
      resolve: (m) => m.approvedBy?.id ?? null,
    }),
    attachments: t.relation('attachments', { type: ChatAttachment, extensions: listCost(MAX_ATTACHMENTS), query: { orderBy: { id: 'asc' } } }),
  }),
});

export const ChatParticipant = builder.prismaObject('ChatParticipant', {
  description: 'A user taking part in a chat thread',
  fields: (t) => ({
    id: t.exposeInt('id'),
    thread: t.relation('thread'),
    threadId: t.exposeInt('threadId'),
    userId: t.exposeInt('userId'),
    user: t.field({ type: UserRef, nullable: true, resolve: (p, _a, ctx) => loadUser(ctx, p.userId) }),
    createdBy: t.field({ type: UserRef, nullable: true, resolve: (r, _a, ctx) => loadUser(ctx, r.createdById) }),
    createdById: t.exposeInt('createdById', { nullable: true }),
    createdAt: t.expose('createdAt', { type: 'DateTime' }),
  }),
});

const ChatThreadPage = pageType('ChatThreadPage', ChatThread);
const ChatMessagePage = pageType('ChatMessagePage', ChatMessage);

const messageFields = {
  message: 'Markdown, at most 50,000 characters; required unless approvesMessageId or attachmentIds is given',
  isDraft: 'Default false; a draft is visible to its sender and creator only',
};

const CreateChatMessageInput = builder.inputType('CreateChatMessageInput', {
  fields: (t) => ({
    message: t.string({ description: messageFields.message }),
    isDraft: t.boolean({ description: messageFields.isDraft }),
    approvesMessageId: t.int({ description: 'A PREVIEW message (toolMode PREVIEW) of the thread that no message approves yet' }),
    attachmentIds: t.intList({ description: 'Files uploaded with type CHAT_ATTACHMENT (images or PDF) by you for the thread’s client account, not yet attached (else 403); at most 20, a file named twice is attached once' }),
  }),
});

const CreateChatThreadInput = builder.inputType('CreateChatThreadInput', {
  fields: (t) => ({
    clientAccountId: t.int({ required: true }),
    providerClientAccountId: t.int({ description: 'A provider account serving the client account (its users may then use the thread)' }),
    subject: t.string({ description: 'At most 500 characters' }),
    relationType: t.string({ description: 'What it is about, e.g. document, businesspartner, voucher (at most 50 characters, stored lower-cased); with relationId' }),
    relationId: t.int({ description: 'Of a record of this API the relation type names: it must exist in the client account' }),
    isCompleted: t.boolean({ description: 'Default false' }),
    isArchived: t.boolean({ description: 'Default false' }),
    messages: t.field({ type: [CreateChatMessageInput], description: 'Messages posted with the thread, in order (at most 50)' }),
  }),
});

const UpdateChatThreadInput = builder.inputType('UpdateChatThreadInput', {
  description: 'Omitted fields keep their value',
  fields: (t) => ({
    subject: t.string({ description: 'At most 500 characters; empty clears it' }),
    isCompleted: t.boolean(),
    isArchived: t.boolean(),
  }),
});

const UpdateChatMessageInput = builder.inputType('UpdateChatMessageInput', {
  description: 'message and isDraft only; omitted fields keep their value',
  fields: (t) => ({
    message: t.string({ description: messageFields.message }),
    isDraft: t.boolean({ description: 'false sends a draft; a sent message cannot become a draft again' }),
  }),
});

const AddChatParticipantInput = builder.inputType('AddChatParticipantInput', {
  fields: (t) => ({ userId: t.int({ required: true, description: 'A user with access to the thread’s client account or its provider account' }) }),
});

/** chatParticipants: a bounded list read whole, answered as a connection as every list. */
const ChatParticipantList = pageType('ChatParticipantPage', ChatParticipant);

builder.queryFields((t) => ({

  chatThreads: t.field({
    type: ChatThreadPage,
    extensions: pageCost(THREAD_PAGE_LIMITS),
    description: "Chat threads the caller may use, of the accounts named or of all the caller's, newest activity first unless orderBy says otherwise.",
    args: {
      clientAccountId: t.arg.int({ description: "Default: every client account of the caller's (and those its provider accounts serve in threads)" }),
      providerClientAccountId: t.arg.int(),
      relationType: t.arg.string(),
      relationId: t.arg.int(),
      freeText: t.arg.string({ description: 'Every word (case-insensitive, part of a word) in the subject or in a message as shown (hidden code block contents do not count)' }),
      isCompleted: t.arg.boolean(),
      isArchived: t.arg.boolean(),
      orderBy: t.arg.stringList({ description: 'Fields id, created_at, updated_at, last_message_created_at, subject; - for descending. Default -last_message_created_at, -created_at' }),
      ...cursorArgs(t),
      page: t.arg.int(),
      perPage: t.arg.int({ description: '100 by default, at most 1000' }),
    },
    resolve: (_root, args, ctx, info) => listChatThreads(ctx, args, nodesQuery(ctx, info)),
  }),
  chatThread: t.prismaField({
    nullable: true,
    type: 'ChatThread',
    args: { id: t.arg.int({ required: true }) },
    resolve: (query, _root, args, ctx) => getChatThread(ctx, args, query),
  }),

  chatMessages: t.field({
    type: ChatMessagePage,
    extensions: pageCost(MESSAGE_PAGE_LIMITS),
    description: 'The messages of a thread, oldest first unless orderBy is -created_at; drafts only your own.',
    args: {
      threadId: t.arg.int({ required: true }),
      orderBy: t.arg.stringList({ description: 'created_at (default) or -created_at, id' }),
      ...cursorArgs(t),
      page: t.arg.int(),
      perPage: t.arg.int({ description: '100 by default, at most 1000' }),
    },
    resolve: (_root, args, ctx, info) => listChatMessages(ctx, args, nodesQuery(ctx, info)),
  }),

  chatParticipants: t.field({
    type: ChatParticipantList,
    extensions: listCost(100),
    description: 'The participants of a thread, in the order they joined.',
    args: { threadId: t.arg.int({ required: true }), ...windowArgs(t) },
    resolve: (_root, args, ctx, info) => wholeList(args, (filters) => listChatParticipants(ctx, filters, nodesQuery(ctx, info))),
  }),
}));

builder.mutationFields((t) => ({
  createChatThread: t.prismaField({
    type: 'ChatThread',
    description: 'Creates a thread (you become its first participant) with its messages, in one transaction.',
    args: { input: t.arg({ type: CreateChatThreadInput, required: true }) },
    resolve: (query, _root, args, ctx) => createChatThread(ctx, args, query),
  }),
  updateChatThread: t.prismaField({
    type: 'ChatThread',
    description: 'Changes the subject, or marks the thread completed or archived (and back).',
    args: { id: t.arg.int({ required: true }), input: t.arg({ type: UpdateChatThreadInput, required: true }) },
    resolve: (query, _root, args, ctx) => updateChatThread(ctx, args, query),
  }),
  createChatMessage: t.prismaField({
    type: 'ChatMessage',
    description: 'Posts a message to a thread; you are its sender and become a participant.',
    args: { threadId: t.arg.int({ required: true }), input: t.arg({ type: CreateChatMessageInput, required: true }) },
    resolve: (query, _root, args, ctx) => createChatMessage(ctx, args, query),
  }),
  updateChatMessage: t.prismaField({
    type: 'ChatMessage',
    description: 'Edits a message’s text or sends a draft; you become its sender (of a sent message too).',
    args: { threadId: t.arg.int({ required: true }), messageId: t.arg.int({ required: true }), input: t.arg({ type: UpdateChatMessageInput, required: true }) },
    resolve: (query, _root, args, ctx) => updateChatMessage(ctx, args, query),
  }),
  addChatParticipant: t.prismaField({
    type: 'ChatParticipant',
    description: 'Adds a user with access to the thread to its participants; one already there is returned unchanged.',
    args: { threadId: t.arg.int({ required: true }), input: t.arg({ type: AddChatParticipantInput, required: true }) },
    resolve: (query, _root, args, ctx) => addChatParticipant(ctx, args, query),
  }),
}));
