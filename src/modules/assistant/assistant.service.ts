import type { GraphQLSchema } from 'graphql';
import type { AssistantConfig } from '../../config.ts';
import type { ChatMessage, ChatThread } from '../../generated/prisma/client.ts';
import type { RequestContext } from '../../shared/context.ts';
import { boundedMessage } from '../../shared/errors.ts';
import { mayStore, toolbox, type ToolEntry } from '../../mcp/tools.ts';
import { postMessage } from '../chat/chat.service.ts';
import { completeChat, ModelError, type ModelMessage, type ModelTool } from './model-client.ts';
import { runInMode, type Change } from './preview-execution.ts';
import { IdRemap, MAX_TOOL_CALLS, referenceTypes, rerunCalls, runToolCall, toolsFor, toPreview, type CallOutcome, type ToolCall, type ToolPreview, type ToolResult } from './tool-calls.ts';

/**
 * The tool-calling assistant of a chat thread (spec 002 "Chat": tool-calling messages).
 *
 * - A published message that mentions `@assistant` asks it (a job, `chat.assistant-reply`, runs the
 *   model after the message's transaction has committed; the poster's request never waits for it).
 * - The model (an OpenAI-compatible chat-completions API, src/config.ts ASSISTANT_*) gets the
 *   thread's recent messages and the MCP tools the asker may use — the same names, input schemas and
 *   descriptions as /mcp, without the chat's own tools. Its tool calls run in PREVIEW as the asker:
 *   each round in one rolled-back transaction that first replays the earlier rounds' changes, so a
 *   later call sees (and may name) what an earlier one created. At most ASSISTANT_MAX_ROUNDS model
 *   requests and ASSISTANT_TIMEOUT_SECONDS in all.
 * - Its reply is a PREVIEW message: the model's text, tool_calls, tool_results and previews (each with
 *   need_approval). When it changed something and nothing needs approval, a WRITE message follows at
 *   once: the changing calls run again in one committed transaction as the asker, with need_approval
 *   false; that message approves the preview itself (approves_message_id), so it cannot be approved
 *   again. Otherwise a user with write access approves it by posting a message with
 *   approves_message_id: the changing calls then run in WRITE as the approver (the WRITE message).
 * - A write is all or nothing: when a call fails (the books moved on since the preview), nothing is
 *   written and the WRITE message carries the results with the error and action_error true.
 * - When the model fails (unreachable, an error status, no answer in time) the reply is an ordinary
 *   message of the assistant saying so, with action_error true; the poster never sees a 500.
 */

/** `@assistant` as a word of the message text (not inside an e-mail address). */
const MENTION = /(^|[^\w.@-])@assistant\b/i;
export const mentionsAssistant = (text: string | null | undefined): boolean => !!text && MENTION.test(text);

/** The messages of the thread the model reads (the newest ones). */
const HISTORY = 40;
/** Most characters of one tool result the model reads back (lists can be long); of an earlier reply's results, fewer. */
const RESULT_CHARS = 20_000;
const EARLIER_RESULT_CHARS = 2_000;

/** Modules whose tools the assistant never gets: it speaks in the thread by replying, not by posting through a tool. */
const EXCLUDED_MODULES: ReadonlySet<string> = new Set(['chat']);

/** The tools the model may call for this actor, per the configuration's module list. */
function assistantTools(schema: GraphQLSchema, config: AssistantConfig, canWrite: boolean): ToolEntry[] {
  const wanted = config.toolModules && new Set(config.toolModules);
  return toolsFor(toolbox(schema), canWrite, EXCLUDED_MODULES).filter((t) => !wanted || t.module === 'graphql' || wanted.has(t.module));
}

const modelTool = (t: ToolEntry): ModelTool => ({
  type: 'function',
  function: { name: t.tool.name, description: t.tool.description ?? t.tool.name, parameters: t.tool.inputSchema as Record<string, unknown> },
});

function systemPrompt(thread: ChatThread, accountName: string, asker: string): string {
  const today = new Date().toISOString().slice(0, 10);
  return [
    `You are the bookkeeping assistant in a chat of a Norwegian accounting service. Today is ${today}.`,
    `The thread belongs to client account ${thread.clientAccountId} (${accountName})${thread.subject ? `, subject "${thread.subject}"` : ''}${
      thread.relationType ? `, about ${thread.relationType} ${thread.relationId ?? ''}`.trimEnd() : ''
    }. You are answering ${asker}.`,
    'Use the tools to read and change the books of that client account. Dates are YYYY-MM-DD; amounts are decimal strings.',
    'Every change you make is a preview: nothing is written until your reply is finished. Ids that tools return for new records are provisional, but you may use them in later calls of this reply.',
    'Changes that delete, post, finalize or send something need the user’s approval; say so briefly and the user approves them in the chat. Other changes are written right after your reply.',
    'Answer briefly, in the language of the question.',
  ].join('\n');
}

/** The thread's recent published messages as the model's conversation. */
async function conversation(ctx: RequestContext, thread: ChatThread, upTo: number): Promise<ModelMessage[]> {
  const messages = (
    await ctx.db.chatMessage.findMany({
      where: { threadId: thread.id, isDraft: false, id: { lte: upTo } },
      orderBy: { id: 'desc' },
      take: HISTORY,
      include: { fromUser: { select: { firstName: true, lastName: true, email: true } }, attachments: { select: { id: true, fileName: true } } },
    })
  ).reverse();
  const out: ModelMessage[] = [];
  for (const m of messages) {
    if (m.fromUserId !== null) {
      const name = [m.fromUser?.firstName, m.fromUser?.lastName].filter(Boolean).join(' ') || m.fromUser?.email || `user ${m.fromUserId}`;
      const parts = [m.message ?? ''];
      if (m.approvesMessageId) parts.push(`(approves the changes of message ${m.approvesMessageId})`);
      if (m.attachments.length) parts.push(`(attached: ${m.attachments.map((a) => `file ${a.id} ${a.fileName}`).join(', ')})`);
      out.push({ role: 'user', content: `${name}: ${parts.filter(Boolean).join(' ')}` });
      continue;
    }
    const calls = (m.toolCalls as ToolCall[] | null) ?? [];
    if (m.toolMode === 'PREVIEW' && calls.length) {
      const results = new Map(((m.toolResults as ToolResult[] | null) ?? []).map((r) => [r.tool_call_id, r]));
      out.push({ role: 'assistant', content: null, tool_calls: calls });
      for (const c of calls) out.push({ role: 'tool', tool_call_id: c.id, content: results.get(c.id)?.content.slice(0, EARLIER_RESULT_CHARS) ?? 'null' });
    }
    if (m.message) out.push({ role: 'assistant', content: m.message });
  }
  return out;
}

/** The asker's display name for the prompt. */
async function nameOf(ctx: RequestContext, userId: number): Promise<string> {
  const u = await ctx.db.user.findUnique({ where: { id: userId }, select: { firstName: true, lastName: true, email: true } });
  return [u?.firstName, u?.lastName].filter(Boolean).join(' ') || u?.email || `user ${userId}`;
}

/** What one run of the model produced. */
interface Reply {
  content: string;
  outcomes: CallOutcome[];
}

/** Model turns until it answers without tool calls (or the rounds are used up); the tool calls run in PREVIEW. */
async function converse(ctx: RequestContext, schema: GraphQLSchema, config: AssistantConfig, messages: ModelMessage[], signal: AbortSignal): Promise<Reply> {
  const tools = assistantTools(schema, config, ctx.actor.scopes.has('write'));
  const byName = new Map(tools.map((t) => [t.tool.name, t]));
  const declared = tools.map(modelTool);
  const references = referenceTypes(schema);
  const outcomes: CallOutcome[] = [];
  const seenIds = new Set<string>();
  for (let round = 1; round <= config.maxRounds; round++) {
    const reply = await completeChat(config, messages, declared, signal);
    if (!reply.toolCalls.length) return { content: reply.content?.trim() || '(The assistant gave no answer.)', outcomes };
    // a call id names one call in the whole thread (some servers repeat theirs)
    if (outcomes.length + reply.toolCalls.length > MAX_TOOL_CALLS) {
      return { content: `I stopped: one reply may make at most ${MAX_TOOL_CALLS} tool calls, and the next round would have made ${outcomes.length + reply.toolCalls.length}. Ask me to go on.`, outcomes };
    }
    const calls = reply.toolCalls.map((c, i) => (seenIds.has(c.id) ? { ...c, id: `${c.id}_${round}_${i}` } : c));
    for (const c of calls) seenIds.add(c.id);
    messages.push({ role: 'assistant', content: reply.content, tool_calls: calls });
    const earlier = outcomes.filter((o) => o.writes);
    const now = await runInMode(ctx, schema, 'PREVIEW', async (execution) => {
      const remap = new IdRemap(references);
      await rerunCalls(execution, byName, earlier, remap);
      const out: CallOutcome[] = [];
      for (const call of calls) out.push(await runToolCall(execution, byName, call, remap));
      return out;
    });
    if (signal.aborted) throw new ModelError('the reply took longer than allowed');
    outcomes.push(...now);
    for (const o of now) messages.push({ role: 'tool', tool_call_id: o.call.id, content: o.result.content.slice(0, RESULT_CHARS) });
  }
  return { content: `I stopped after ${config.maxRounds} rounds of tool calls without finishing; ask me to go on.`, outcomes };
}

/** A PREVIEW message's previews: every change of every call, with the call's id. */
const previewsOf = (outcomes: readonly CallOutcome[], mode: 'PREVIEW' | 'WRITE'): ToolPreview[] => outcomes.flatMap((o) => o.changes.map((c) => toPreview(o.call.id, c, mode)));

/**
 * Answers the message `messageId` of the thread as the context's actor: runs the model, posts the
 * PREVIEW reply, and writes it at once when nothing needs approval. Never throws for a model failure:
 * the reply then says what went wrong.
 */
export async function replyToMessage(ctx: RequestContext, schema: GraphQLSchema, config: AssistantConfig | undefined, threadId: number, messageId: number, signal?: AbortSignal): Promise<void> {
  const thread = await ctx.db.chatThread.findUnique({ where: { id: threadId }, include: { clientAccount: { select: { displayName: true } } } });
  const trigger = await ctx.db.chatMessage.findUnique({ where: { id: messageId }, select: { id: true, threadId: true, isDraft: true } });
  if (!thread || !trigger || trigger.threadId !== threadId || trigger.isDraft) return; // deleted meanwhile: nobody to answer
  if (!config) {
    await postMessage(ctx, threadId, {
      fromUserId: null,
      message: 'No assistant is connected to this server (its administrator sets ASSISTANT_URL and ASSISTANT_MODEL).',
      actionError: true,
    });
    return;
  }
  const timeout = AbortSignal.timeout(config.timeoutMs);
  const deadline = signal ? AbortSignal.any([signal, timeout]) : timeout;
  let reply: Reply;
  try {
    const messages: ModelMessage[] = [{ role: 'system', content: systemPrompt(thread, thread.clientAccount.displayName, await nameOf(ctx, ctx.actor.userId)) }, ...(await conversation(ctx, thread, messageId))];
    reply = await converse(ctx, schema, config, messages, deadline);
  } catch (e) {
    if (!(e instanceof ModelError)) ctx.logger.error({ err: e, threadId, messageId }, 'the chat assistant failed');
    const why = e instanceof ModelError ? e.message : 'an unexpected error occurred';
    await postMessage(ctx, threadId, { fromUserId: null, message: `The assistant could not answer: ${boundedMessage(why)}.`, actionError: true });
    return;
  }
  const previews = previewsOf(reply.outcomes, 'PREVIEW');
  const preview = await postMessage(ctx, threadId, {
    fromUserId: null,
    message: reply.content,
    toolCalls: reply.outcomes.map((o) => o.call),
    toolResults: reply.outcomes.map((o) => o.result),
    previews,
    toolMode: 'PREVIEW',
  });
  if (reply.outcomes.some((o) => o.writes) && !previews.some((p) => p.need_approval)) await writePreview(ctx, schema, threadId, preview, preview.id);
}

/** Thrown inside a write's step when a call failed, so everything the write did is rolled back. */
class WriteFailed extends Error {
  constructor(readonly outcomes: CallOutcome[]) {
    super('a tool call of the write failed');
  }
}

/** The text of a WRITE message. */
function writeSummary(outcomes: readonly CallOutcome[], ok: boolean): string {
  if (!ok) {
    const failed = outcomes.find((o) => o.result.is_error);
    return failed ? `Nothing was written: ${failed.call.function.name} failed: ${boundedMessage(failed.result.content)}` : 'Nothing was written: an unexpected error occurred.';
  }
  const changes = outcomes.flatMap((o) => o.changes);
  if (!changes.length) return 'Nothing needed writing.';
  return `Written: ${changes.map((c) => `${c.operation} ${c.type}${c.id === null ? '' : ` ${c.id}`}`).join('; ')}.`;
}

/**
 * Runs the changing calls of a PREVIEW message again in WRITE as the context's actor and posts the
 * WRITE message in the same transaction. `approvesMessageId`: the preview, when this write approves it
 * itself (nothing needed approval); null after a user's approval message.
 */
export async function writePreview(ctx: RequestContext, schema: GraphQLSchema, threadId: number, preview: ChatMessage, approvesMessageId: number | null): Promise<void> {
  const calls = (preview.toolCalls as ToolCall[] | null) ?? [];
  const results = new Map(((preview.toolResults as ToolResult[] | null) ?? []).map((r) => [r.tool_call_id, r]));
  const previews = (preview.previews as ToolPreview[] | null) ?? [];
  const box = toolbox(schema);
  const earlier = calls
    .map((call) => ({ call, changes: previews.filter((p) => p.tool_call_id === call.id).map((p): Change => ({ type: p.type, id: p.id, operation: p.operation, needsApproval: p.need_approval, reasons: p.reasons })) }))
    .filter(({ call, changes }) => results.get(call.id)?.is_error === false && (mayStore(box.byName.get(call.function.name)) || changes.length > 0));
  await runInMode(ctx, schema, 'WRITE', async (execution) => {
    const step = await execution.step(async () => {
      const outcomes = await rerunCalls(execution, box.byName, earlier, new IdRemap(referenceTypes(schema)));
      if (outcomes.some((o) => o.result.is_error)) throw new WriteFailed(outcomes);
      return outcomes;
    });
    if (!step.ok && !(step.error instanceof WriteFailed)) ctx.logger.error({ err: step.error, threadId, previewId: preview.id }, 'writing a chat preview failed');
    const outcomes = step.ok ? step.value : step.error instanceof WriteFailed ? step.error.outcomes : [];
    await postMessage(execution.ctx, threadId, {
      fromUserId: null,
      message: writeSummary(outcomes, step.ok),
      toolCalls: outcomes.map((o) => o.call),
      toolResults: outcomes.map((o) => o.result),
      previews: step.ok ? previewsOf(outcomes, 'WRITE') : [],
      toolMode: 'WRITE',
      // a failed automatic write leaves the preview unapproved: a user may approve (retry) it
      approvesMessageId: step.ok ? approvesMessageId : null,
      actionError: !step.ok,
    });
  });
}

/** A published message approving a PREVIEW message (the chat service checked it): write that preview as the approver. */
export async function writeApproved(ctx: RequestContext, schema: GraphQLSchema, thread: ChatThread, approval: ChatMessage): Promise<void> {
  const preview = await ctx.db.chatMessage.findUnique({ where: { id: approval.approvesMessageId! } });
  if (!preview || preview.threadId !== thread.id || preview.toolMode !== 'PREVIEW') return;
  await writePreview(ctx, schema, thread.id, preview, null);
}
