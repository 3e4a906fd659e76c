import { sqlPosition } from '../../shared/sql-pagination.ts';
import { Prisma as PrismaNS, type ChatMessage, type ChatThread } from '../../generated/prisma/client.ts';
import { afterCommit, auditUserId, inTransaction, type RequestContext } from '../../shared/context.ts';
import { ForbiddenError, NotFoundError, ValidationError } from '../../shared/errors.ts';
import { findPage, orderTerms, pageWindow, toOrderBy } from '../../shared/pagination.ts';
import { relationReferences } from '../../shared/record-relations.ts';
import { canAccessAccount, eligibleAccountIds, isSystem, providerServes } from '../../shared/tenancy.ts';
import { containsPattern, searchWords } from '../../shared/text-search.ts';
import { check, issuePath, Issues, parse, validate, type Args, type Path } from '../../shared/validation.ts';
import { isPaged } from '../files/files.rules.ts';
import {
  chatRules as rules,
  DEFAULT_MESSAGE_ORDER,
  DEFAULT_THREAD_ORDER,
  MESSAGE_ORDER,
  MESSAGE_PAGE_LIMITS,
  THREAD_ORDER,
  THREAD_PAGE_LIMITS,
  trustedMessage,
  type TrustedMessage,
} from './chat.rules.ts';
import { notifyMessagePublished } from './message-events.ts';

/**
 * Chat (spec 002 "Chat thread, message, participant", "Chat"): threads of a client account, their
 * messages and participants. Who may use a thread: a user with access to its client account, or to
 * its provider account while that account still serves the client (a provider_relationships row).
 * Drafts are visible to their sender and their creator only. Message text is stored raw; responses
 * show it through code-blocks.ts (hidden codeaction/coderesult contents). Published messages go to
 * the listeners of message-events.ts after the transaction commits.
 */

type ThreadQuery = { include?: PrismaNS.ChatThreadInclude; select?: PrismaNS.ChatThreadSelect };
type MessageQuery = { include?: PrismaNS.ChatMessageInclude; select?: PrismaNS.ChatMessageSelect };
type ParticipantQuery = { include?: PrismaNS.ChatParticipantInclude; select?: PrismaNS.ChatParticipantSelect };

const sql = PrismaNS.sql;
const join = PrismaNS.join;

// ── Access ───────────────────────────────────────────────────────────────────────────────────────

type ThreadAccounts = Pick<ChatThread, 'clientAccountId' | 'providerClientAccountId'>;

/** Through the client account, or through the provider account while it serves the client. */
async function mayUseThread(ctx: RequestContext, t: ThreadAccounts): Promise<boolean> {
  if (await canAccessAccount(ctx, t.clientAccountId)) return true;
  return t.providerClientAccountId != null && (await canAccessAccount(ctx, t.providerClientAccountId)) && (await providerServes(ctx.db, t.providerClientAccountId, t.clientAccountId));
}

/** The same rule for another user (a participant to add): their eligible accounts, not the caller's. */
async function userMayUseThread(ctx: RequestContext, userId: number, t: ThreadAccounts): Promise<boolean> {
  const theirs = await eligibleAccountIds(ctx.db, userId);
  if (theirs.has(t.clientAccountId)) return true;
  return t.providerClientAccountId != null && theirs.has(t.providerClientAccountId) && (await providerServes(ctx.db, t.providerClientAccountId, t.clientAccountId));
}

const forbidden = (t: ThreadAccounts) =>
  new ForbiddenError(
    `You do not have access to client account ${t.clientAccountId}${t.providerClientAccountId != null ? ` or its provider account ${t.providerClientAccountId}` : ''}`,
  );

/** A thread the caller may use: 404 when missing, 403 without access to its client or provider account. */
export async function getChatThread(ctx: RequestContext, { id }: { id: number }, query: ThreadQuery = {}) {
  const thread = await ctx.db.chatThread.findUnique({ ...query, where: { id } });
  if (!thread) throw new NotFoundError(`Chat thread ${id}`);
  if (!(await mayUseThread(ctx, thread))) throw forbidden(thread);
  return thread;
}

/**
 * Where a new thread may go: the caller needs access to the client account, or to the provider
 * account that serves it (spec 002: "Caller needs access to client_account_id or
 * provider_client_account_id"). A provider that does not serve the client is 400 for a caller of
 * the client account, 403 for anyone else (naming your own account as provider opens no other).
 */
async function requireThreadAccounts(ctx: RequestContext, t: ThreadAccounts): Promise<void> {
  const client = await ctx.db.clientAccount.findUnique({ where: { id: t.clientAccountId }, select: { id: true } });
  const ownsClient = await canAccessAccount(ctx, t.clientAccountId);
  if (!client && isSystem(ctx)) throw new NotFoundError(`Client account ${t.clientAccountId}`);
  const provider = t.providerClientAccountId;
  const served = client != null && provider != null && (await providerServes(ctx.db, provider, t.clientAccountId));
  if (!ownsClient && !(served && (await canAccessAccount(ctx, provider!)))) throw forbidden(t);
  if (provider != null && !served) {
    throw ValidationError.field('providerClientAccountId', `client account ${provider} is not a provider account serving client account ${t.clientAccountId}`);
  }
}

/** Drafts are visible to their sender and their creator only (the system sees all). */
const visibleMessages = (ctx: RequestContext): PrismaNS.ChatMessageWhereInput =>
  isSystem(ctx) ? {} : { OR: [{ isDraft: false }, { fromUserId: ctx.actor.userId }, { createdById: ctx.actor.userId }] };

const isVisible = (ctx: RequestContext, m: Pick<ChatMessage, 'isDraft' | 'fromUserId' | 'createdById'>) =>
  isSystem(ctx) || !m.isDraft || m.fromUserId === ctx.actor.userId || m.createdById === ctx.actor.userId;

// ── Threads ──────────────────────────────────────────────────────────────────────────────────────

/**
 * The text of a message without its codeaction and coderesult blocks, in SQL, so free_text finds
 * what responses show. It follows code-blocks.ts: a block opens at the start of a line with three or
 * more backticks and the kind, and closes at the next line of at least as many backticks, or at the
 * end. PostgreSQL's rules: the flag `w` makes ^ and $ match at line ends while . still matches a
 * line break; the expression is non-greedy as a whole (its first quantifier is), so each block ends
 * at its first closing fence. (One difference: a codeaction block shown inside another fence, an
 * example, is hidden here while responses show it.)
 */
const VISIBLE_TEXT = sql`regexp_replace(m.message, ${'^(`{3,}?)(codeaction|coderesult)[ \\t]*\\r?(\\n.*?)?(\\n\\1`*[ \\t]*\\r?$|\\Z)'}, '', 'gw')`;

/**
 * GET /chat/threads: the threads the caller may use (through the client or the serving provider
 * account), of the accounts named or of all the caller's. A named client account must be the
 * caller's or served by one of the caller's accounts; a named provider account the caller's unless
 * the named client account is. The page of ids is chosen in one SQL query.
 */
export async function listChatThreads(ctx: RequestContext, args: Args<typeof rules.listThreads>, query: ThreadQuery = {}) {
  const a = parse(rules.listThreads, args);
  const where: PrismaNS.Sql[] = [];
  if (!isSystem(ctx)) {
    const eligible = [...(await ctx.eligibleAccounts())];
    const mine = new Set(eligible);
    if (a.clientAccountId != null && !mine.has(a.clientAccountId)) {
      const viaProvider = await ctx.db.providerRelationship.findFirst({ where: { clientAccountId: a.clientAccountId, providerAccountId: { in: eligible } }, select: { id: true } });
      if (!viaProvider) throw new ForbiddenError(`You do not have access to client account ${a.clientAccountId}`);
    }
    if (a.providerClientAccountId != null && !mine.has(a.providerClientAccountId) && !(a.clientAccountId != null && mine.has(a.clientAccountId))) {
      throw new ForbiddenError(`You do not have access to client account ${a.providerClientAccountId}`);
    }
    where.push(sql`(c.client_account_id = ANY(${eligible}::int[]) OR (c.provider_client_account_id = ANY(${eligible}::int[]) AND EXISTS (
      SELECT 1 FROM provider_relationships r WHERE r.provider_account_id = c.provider_client_account_id AND r.client_account_id = c.client_account_id)))`);
  }
  if (a.clientAccountId != null) where.push(sql`c.client_account_id = ${a.clientAccountId}`);
  if (a.providerClientAccountId != null) where.push(sql`c.provider_client_account_id = ${a.providerClientAccountId}`);
  if (a.relationType != null) where.push(sql`c.relation_type = ${a.relationType}`);
  if (a.relationId != null) where.push(sql`c.relation_id = ${a.relationId}`);
  if (a.isCompleted != null) where.push(sql`c.is_completed = ${a.isCompleted}`);
  if (a.isArchived != null) where.push(sql`c.is_archived = ${a.isArchived}`);
  const drafts = isSystem(ctx) ? sql`TRUE` : sql`(m.is_draft = false OR m.from_user_id = ${ctx.actor.userId} OR m.created_by_id = ${ctx.actor.userId})`;
  for (const word of searchWords(a.freeText)) {
    const p = containsPattern(word);
    where.push(sql`(c.subject ILIKE ${p} OR EXISTS (SELECT 1 FROM chat_messages m WHERE m.thread_id = c.id AND ${drafts} AND ${VISIBLE_TEXT} ILIKE ${p}))`);
  }

  const terms = orderTerms(a.orderBy, THREAD_ORDER, DEFAULT_THREAD_ORDER);
  const order = [
    ...terms.map((o) => PrismaNS.raw(`c.${o.field} ${o.direction === 'desc' ? 'DESC NULLS LAST' : 'ASC NULLS FIRST'}`)),
    ...(terms.some((o) => o.field === 'id') ? [] : [PrismaNS.raw(`c.id ${terms[0].direction === 'desc' ? 'DESC' : 'ASC'}`)]),
  ];
  const from = sql`FROM chat_threads c WHERE ${where.length ? join(where, ' AND ') : sql`TRUE`}`;
  return findPage(
    pageWindow(a, THREAD_PAGE_LIMITS),
    async ({ skip, take }) => {
      const rows = await ctx.db.$queryRaw<{ id: number }[]>`SELECT c.id ${from} ORDER BY ${join(order, ', ')} LIMIT ${take} OFFSET ${skip}`;
      if (!rows.length) return [];
      const found = await ctx.db.chatThread.findMany({ ...query, where: { id: { in: rows.map((r) => r.id) } } });
      const byId = new Map(found.map((t) => [t.id, t]));
      return rows.map((r) => byId.get(r.id)).filter((t) => t !== undefined);
    },
    async () => Number((await ctx.db.$queryRaw<{ n: number }[]>`SELECT count(*)::int AS n ${from}`)[0]?.n ?? 0),
    sqlPosition(ctx, sql`c.id`, from, order),
  );
}

export interface NewThread {
  clientAccountId: number;
  providerClientAccountId?: number | null;
  subject?: string | null;
  relationType?: string | null;
  relationId?: number | null;
  isCompleted?: boolean;
  isArchived?: boolean;
}

/**
 * Writes a thread whose accounts and relation are checked, with its creator as its first
 * participant (a task's thread: tasks.service.ts). Call it inside the caller's transaction.
 */
export async function insertThread(tx: RequestContext, data: NewThread): Promise<ChatThread> {
  const createdById = auditUserId(tx);
  const thread = await tx.db.chatThread.create({ data: { ...data, createdById } });
  if (createdById) await addParticipantRows(tx, thread.id, [createdById]);
  return thread;
}

/**
 * POST /chat/threads: the thread, its creator as participant and its `messages` in one transaction
 * (a problem with any message rolls all back, named `messages.<i>.<field>`); the published messages
 * go to the listeners after the commit.
 */
export async function createChatThread(ctx: RequestContext, args: Args<typeof rules.createThread>, query: ThreadQuery = {}) {
  const parsed = parse(rules.createThread, args);
  return inTransaction(ctx, async (tx) => {
    const sent = args.input;
    await requireThreadAccounts(tx, { clientAccountId: sent.clientAccountId, providerClientAccountId: sent.providerClientAccountId ?? null });
    const { input } = await check(tx, parsed, {
      clientAccountId: sent.clientAccountId,
      references: ({ input }) => relationReferences(input?.relationType, input?.relationId, ['input']),
    });
    const { messages, ...fields } = input;
    const thread = await insertThread(tx, fields);
    for (const [i, m] of (messages ?? []).entries()) await insertMessage(tx, thread, m, ['input', 'messages', i]);
    return tx.db.chatThread.findUniqueOrThrow({ ...query, where: { id: thread.id } });
  });
}

/** PATCH /chat/threads/{id} (designed here): subject, is_completed and is_archived; omitted fields keep their value. */
export async function updateChatThread(ctx: RequestContext, args: Args<typeof rules.updateThread>, query: ThreadQuery = {}) {
  const parsed = parse(rules.updateThread, args);
  return inTransaction(ctx, async (tx) => {
    const thread = await getChatThread(tx, args);
    const { input } = parsed;
    return tx.db.chatThread.update({ ...query, where: { id: thread.id }, data: input });
  });
}

// ── Messages ─────────────────────────────────────────────────────────────────────────────────────

/** GET /chat/threads/{id}/messages (designed here): oldest first unless order_by says -created_at; drafts of others left out. */
export async function listChatMessages(ctx: RequestContext, args: Args<typeof rules.listMessages>, query: MessageQuery = {}) {
  const a = parse(rules.listMessages, args);
  const thread = await getChatThread(ctx, { id: a.threadId });
  const where: PrismaNS.ChatMessageWhereInput = { threadId: thread.id, ...visibleMessages(ctx) };
  return findPage(
    pageWindow(a, MESSAGE_PAGE_LIMITS),
    (w) => ctx.db.chatMessage.findMany({ ...query, where, orderBy: toOrderBy(a.orderBy, MESSAGE_ORDER, DEFAULT_MESSAGE_ORDER), ...w }),
    () => ctx.db.chatMessage.count({ where }),
  );
}

/**
 * The attachments of a new message (spec 002): files uploaded with type CHAT_ATTACHMENT, images or
 * PDF, by the sender, for the thread's client account, not yet attached; any other is 403. What is
 * wrong is said only of the thread account's files (another account's file reads as not eligible).
 */
async function checkAttachments(tx: RequestContext, thread: ChatThread, ids: readonly number[], path: Path): Promise<void> {
  if (!ids.length) return;
  const files = await tx.db.storedFile.findMany({
    where: { id: { in: [...ids] } },
    select: { id: true, clientAccountId: true, type: true, contentType: true, createdById: true, chatMessageId: true },
  });
  const byId = new Map(files.map((f) => [f.id, f]));
  for (const id of ids) {
    const f = byId.get(id);
    const why = !f || f.clientAccountId !== thread.clientAccountId
      ? `is not a file of client account ${thread.clientAccountId}`
      : f.type !== 'CHAT_ATTACHMENT'
        ? `was uploaded with type ${f.type}, not CHAT_ATTACHMENT`
        : !isPaged(f.contentType)
          ? `is ${f.contentType}; only images and PDF can be attached`
          : !isSystem(tx) && f.createdById !== tx.actor.userId
            ? 'was uploaded by another user'
            : f.chatMessageId != null
              ? `is already attached to message ${f.chatMessageId}`
              : null;
    if (why) throw new ForbiddenError(`${issuePath([...path, 'attachment_ids']).join('.')}: file ${id} ${why}`);
  }
}

/** An issue of approves_message_id (spec 002: a PREVIEW message of the thread that is not approved yet), or null. */
async function approvalIssue(tx: RequestContext, thread: ChatThread, approvesId: number): Promise<string | null> {
  const target = await tx.db.chatMessage.findUnique({
    where: { id: approvesId },
    select: { threadId: true, toolMode: true, approvedBy: { select: { id: true } } },
  });
  if (!target || target.threadId !== thread.id || target.toolMode !== 'PREVIEW') return `message ${approvesId} is not a PREVIEW message (tool_mode PREVIEW) of thread ${thread.id}`;
  if (target.approvedBy) return `message ${approvesId} is already approved (by message ${target.approvedBy.id})`;
  return null;
}

/**
 * Writes one message of `thread` in the caller's transaction: approval and attachments checked, the
 * files attached, the sender a participant; a published (non-draft) message moves the thread's
 * last_message_created_at and goes to the listeners after the commit.
 */
async function insertMessage(tx: RequestContext, thread: ChatThread, m: TrustedMessage, path: Path): Promise<ChatMessage> {
  if (m.approvesMessageId != null) {
    const issue = await approvalIssue(tx, thread, m.approvesMessageId);
    if (issue) throw ValidationError.of([{ path: issuePath([...path, 'approvesMessageId']), message: issue }]);
  }
  const attachmentIds = m.attachmentIds ?? [];
  await checkAttachments(tx, thread, attachmentIds, path);
  const fromUserId = m.fromUserId === undefined ? auditUserId(tx) : m.fromUserId;
  const json = (v: unknown) => (v == null ? PrismaNS.DbNull : (v as PrismaNS.InputJsonValue));
  const message = await tx.db.chatMessage.create({
    data: {
      threadId: thread.id,
      fromUserId,
      message: typeof m.message === 'string' && m.message.trim() !== '' ? m.message : null,
      isDraft: m.isDraft ?? false,
      approvesMessageId: m.approvesMessageId ?? null,
      toolCalls: json(m.toolCalls),
      toolResults: json(m.toolResults),
      previews: json(m.previews),
      toolMode: m.toolMode ?? null,
      actionItems: json(m.actionItems),
      actionMode: m.actionMode ?? null,
      actionError: m.actionError ?? false,
      createdById: auditUserId(tx),
    },
  });
  if (attachmentIds.length) {
    // only files still unattached: a message that took one meanwhile has committed, so checking again names it
    const { count } = await tx.db.storedFile.updateMany({ where: { id: { in: [...attachmentIds] }, chatMessageId: null }, data: { chatMessageId: message.id } });
    if (count !== attachmentIds.length) {
      const taken = await tx.db.storedFile.findFirst({ where: { id: { in: [...attachmentIds] }, NOT: { chatMessageId: message.id } }, select: { id: true, chatMessageId: true } });
      throw new ForbiddenError(`${issuePath([...path, 'attachment_ids']).join('.')}: file ${taken?.id} is already attached to message ${taken?.chatMessageId}`);
    }
  }
  if (fromUserId) await addParticipantRows(tx, thread.id, [fromUserId]);
  if (!message.isDraft) await publish(tx, thread.id, message, m.notify !== false);
  return message;
}

/** A message becomes visible to the thread: last_message_created_at moves (never back), the listeners hear of it after the commit. */
async function publish(tx: RequestContext, threadId: number, message: ChatMessage, notify: boolean): Promise<void> {
  await tx.db.$executeRaw`UPDATE chat_threads SET last_message_created_at = GREATEST(COALESCE(last_message_created_at, ${message.createdAt}), ${message.createdAt}), updated_at = now() WHERE id = ${threadId}`;
  if (!notify) return;
  const thread = await tx.db.chatThread.findUniqueOrThrow({ where: { id: threadId } });
  await afterCommit(tx, (outside) => notifyMessagePublished(outside, thread, message));
}

/** POST /chat/threads/{thread_id}/messages: 201 with the message; the caller is its sender. */
export async function createChatMessage(ctx: RequestContext, args: Args<typeof rules.createMessage>, query: MessageQuery = {}) {
  const parsed = parse(rules.createMessage, args);
  return inTransaction(ctx, async (tx) => {
    const thread = await getChatThread(tx, { id: args.threadId });
    const { input } = parsed;
    const message = await insertMessage(tx, thread, input, ['input']);
    return tx.db.chatMessage.findUniqueOrThrow({ ...query, where: { id: message.id } });
  });
}

/**
 * For trusted in-process callers (message listeners, the assistant, jobs): posts a message to a
 * thread with the columns the public input does not take — from_user_id (null: the assistant),
 * tool_calls, tool_results, previews (each with need_approval), tool_mode, action_items,
 * action_mode, action_error — and `notify: false` to keep it from the listeners. The caller's
 * context still needs access to the thread (a system context has it). Attachments, approvals and
 * last_message_created_at as for any message; in the caller's transaction when there is one.
 */
export async function postMessage(ctx: RequestContext, threadId: number, input: TrustedMessage, query: MessageQuery = {}) {
  const m = parse(trustedMessage, input);
  return inTransaction(ctx, async (tx) => {
    const thread = await getChatThread(tx, { id: threadId });
    const message = await insertMessage(tx, thread, m, ['input']);
    return tx.db.chatMessage.findUniqueOrThrow({ ...query, where: { id: message.id } });
  });
}

/**
 * PATCH /chat/threads/{thread_id}/messages/{message_id}: message and is_draft only; the caller
 * becomes its sender (from_user_id). A draft can be edited by whoever sees it (its sender and its
 * creator) and sent (is_draft false: its created_at becomes the time it is sent, it is published);
 * a sent message by anyone with access to the thread, who becomes its sender (spec 002: "caller becomes
 * from_user_id"; its 403 is only for no access), and it cannot become a draft again. Messages of the assistant
 * (tool calls, code actions) are not edited. 404 for another's draft as for a missing message.
 */
export async function updateChatMessage(ctx: RequestContext, args: Args<typeof rules.updateMessage>, query: MessageQuery = {}) {
  const parsed = parse(rules.updateMessage, args);
  return inTransaction(ctx, async (tx) => {
    const thread = await getChatThread(tx, { id: args.threadId });
    const { messageId, input } = parsed;
    const message = await tx.db.chatMessage.findFirst({ where: { id: messageId, threadId: thread.id }, include: { attachments: { select: { id: true } } } });
    if (!message || !isVisible(tx, message)) throw new NotFoundError(`Message ${messageId} of chat thread ${thread.id}`);
    if (message.toolMode != null || message.toolCalls != null || message.previews != null || message.actionMode != null) {
      throw new ValidationError(`Message ${messageId} records tool calls or a code action: it cannot be edited`);
    }
    const issues = new Issues();
    if (!message.isDraft && input.isDraft === true) issues.add(['isDraft'], 'a sent message cannot become a draft again');
    const text = input.message === undefined ? message.message : input.message?.trim() ? input.message : null;
    if (!text && message.approvesMessageId == null && !message.attachments.length) issues.add(['message'], 'is required unless the message approves a preview or has attachments');
    issues.throwIfAny();
    const sending = message.isDraft && input.isDraft === false;
    const fromUserId = auditUserId(tx);
    const updated = await tx.db.chatMessage.update({
      where: { id: message.id },
      data: { message: text, fromUserId, ...(sending ? { isDraft: false, createdAt: new Date() } : {}) },
    });
    if (fromUserId) await addParticipantRows(tx, thread.id, [fromUserId]);
    if (sending) await publish(tx, thread.id, updated, true);
    return tx.db.chatMessage.findUniqueOrThrow({ ...query, where: { id: message.id } });
  });
}

// ── Participants ─────────────────────────────────────────────────────────────────────────────────

/** Adds users to a thread's participants; those already in it stay as they were. */
async function addParticipantRows(tx: RequestContext, threadId: number, userIds: readonly number[]): Promise<void> {
  await tx.db.chatParticipant.createMany({ data: userIds.map((userId) => ({ threadId, userId, createdById: auditUserId(tx) })), skipDuplicates: true });
}

/** Adds a user to a task's thread (its assignee), inside the task's transaction. */
export const addThreadParticipant = (tx: RequestContext, threadId: number, userId: number) => addParticipantRows(tx, threadId, [userId]);

/** GET /chat/threads/{thread_id}/participants: every participant, in the order they joined. */
export async function listChatParticipants(ctx: RequestContext, args: Args<typeof rules.listParticipants>, query: ParticipantQuery = {}) {
  const { threadId } = parse(rules.listParticipants, args);
  const thread = await getChatThread(ctx, { id: threadId });
  return ctx.db.chatParticipant.findMany({ ...query, where: { threadId: thread.id }, orderBy: [{ createdAt: 'asc' }, { id: 'asc' }] });
}

/**
 * POST /chat/threads/{thread_id}/participants: the user must have access to the thread (its client
 * account, or its serving provider account), else 400. A user already taking part is answered with
 * the existing participant, unchanged (adding is idempotent).
 */
export async function addChatParticipant(ctx: RequestContext, args: Args<typeof rules.addParticipant>, query: ParticipantQuery = {}) {
  const parsed = parse(rules.addParticipant, args);
  return inTransaction(ctx, async (tx) => {
    const thread = await getChatThread(tx, { id: args.threadId });
    const { input } = parsed;
    if (!(await userMayUseThread(tx, input.userId, thread))) {
      throw ValidationError.field('userId', `user ${input.userId} does not exist or has no access to client account ${thread.clientAccountId}${thread.providerClientAccountId != null ? ` or its provider account ${thread.providerClientAccountId}` : ''}`);
    }
    await addParticipantRows(tx, thread.id, [input.userId]);
    return tx.db.chatParticipant.findUniqueOrThrow({ ...query, where: { threadId_userId: { threadId: thread.id, userId: input.userId } } });
  });
}
