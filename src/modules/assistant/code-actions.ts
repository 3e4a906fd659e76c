import { getOperationAST, parse, type GraphQLSchema } from 'graphql';
import type { ChatMessage, ChatThread } from '../../generated/prisma/client.ts';
import type { RequestContext } from '../../shared/context.ts';
import { toolbox, toolErrorBody } from '../../mcp/tools.ts';
import { codeBlocksOfKind } from '../chat/code-blocks.ts';
import { postMessage } from '../chat/chat.service.ts';
import { runInMode, type Change, type Execution } from './preview-execution.ts';
import type { ActionItem } from './shapes.ts';

/**
 * Code actions (spec 002 "Chat": code blocks in message text). A ```codeaction block holds one
 * GraphQL operation — the document itself, or a JSON object {query, variables?, operationName?} as
 * sent to /graphql — run as the poster through the same tools as /mcp (`graphql_query` for a query,
 * `graphql_mutation` otherwise: the same limits, validation and masked errors):
 *
 * 1. in PREVIEW (one transaction, rolled back): what it would change is recorded;
 * 2. no errors and nothing needing approval: run again in WRITE and a message holding a coderesult
 *    block is posted with action_mode 'write' and action_items {type, needs_approval: false, id} (the
 *    written records' ids);
 * 3. otherwise a coderesult with action_mode 'preview', action_items with needs_approval, and
 *    action_error true when the run reported errors. Nothing is written.
 *
 * A message with an ```approvecodeaction block runs the thread's last codeaction block in WRITE as
 * the approver and posts a message holding only a coderesult block. A code action is written at most
 * once: approving one whose write already succeeded answers with an error result. A write is all or
 * nothing: any error rolls the whole operation back (action_error true). The result message is posted
 * in the write's transaction, so the books change exactly when a 'write' result says so.
 *
 * The coderesult block's content is JSON {mode, data?, errors?, action_items} (responses hide it).
 */

export interface CodeActionRequest {
  query: string;
  variables?: Record<string, unknown>;
  operationName?: string;
}

/** The block's content as an operation: a JSON body {query, variables, operationName}, else the text is the document. */
export function parseCodeAction(content: string): CodeActionRequest {
  const text = content.trim();
  if (text.startsWith('{')) {
    try {
      const body = JSON.parse(text) as Record<string, unknown>;
      if (typeof body.query === 'string') {
        return {
          query: body.query,
          ...(body.variables && typeof body.variables === 'object' ? { variables: body.variables as Record<string, unknown> } : {}),
          ...(typeof body.operationName === 'string' ? { operationName: body.operationName } : {}),
        };
      }
    } catch {
      // not JSON: a GraphQL document starting with a selection set ({ me { … } })
    }
  }
  return { query: text };
}

/** Which GraphQL tool runs the request: a query goes to graphql_query (no write scope needed), anything else to graphql_mutation. */
function toolFor(request: CodeActionRequest): 'graphql_query' | 'graphql_mutation' {
  try {
    return getOperationAST(parse(request.query), request.operationName)?.operation === 'query' ? 'graphql_query' : 'graphql_mutation';
  } catch {
    return 'graphql_mutation'; // it reports the syntax error
  }
}


const actionItem = (change: Change, mode: 'preview' | 'write'): ActionItem => ({ type: change.type, needs_approval: mode === 'preview' && change.needsApproval, id: change.id });

interface RunResult {
  /** the tool's answer: {data, errors} of the operation, or the error body when it was refused */
  body: { data?: unknown; errors?: unknown[] } | unknown;
  failed: boolean;
  changes: Change[];
}

/** Thrown inside a write's step when the operation reported errors, so everything it did is rolled back. */
class OperationFailed extends Error {
  constructor(readonly body: unknown) {
    super('the code action reported errors');
  }
}

/** Runs the request as one step of the execution; in WRITE any GraphQL error rolls the step back. */
async function runStep(execution: Execution, schema: GraphQLSchema, request: CodeActionRequest): Promise<RunResult> {
  const tool = toolbox(schema).byName.get(toolFor(request))!;
  const outcome = await execution.step(async (ctx) => {
    const body = (await tool.call(ctx, { ...request })) as { errors?: unknown[] };
    if (execution.mode === 'WRITE' && body.errors?.length) throw new OperationFailed(body);
    return body;
  });
  if (outcome.ok) return { body: outcome.value, failed: !!(outcome.value as { errors?: unknown[] }).errors?.length, changes: outcome.changes };
  const body = outcome.error instanceof OperationFailed ? outcome.error.body : toolErrorBody(execution.ctx, outcome.error);
  return { body, failed: true, changes: [] };
}

/** The message text: only a coderesult block with the run's JSON. */
function resultText(mode: 'preview' | 'write', result: RunResult, items: ActionItem[], note?: string): string {
  const body = (result.body && typeof result.body === 'object' ? result.body : { data: result.body }) as Record<string, unknown>;
  const content = { mode, ...('data' in body || 'errors' in body ? body : { errors: [body] }), action_items: items, ...(note ? { note } : {}) };
  return `\`\`\`coderesult\n${JSON.stringify(content, null, 2)}\n\`\`\``;
}

const post = (ctx: RequestContext, threadId: number, mode: 'preview' | 'write', result: RunResult, note?: string) => {
  const items = result.changes.map((c) => actionItem(c, mode));
  return postMessage(ctx, threadId, {
    fromUserId: null,
    message: resultText(mode, result, items, note),
    actionItems: items,
    actionMode: mode,
    actionError: result.failed,
  });
};

/** Serialises the writes of one thread's code actions (two approvals at once) until the transaction ends. */
const lockThread = (ctx: RequestContext, threadId: number) => ctx.db.$executeRaw`SELECT 1 FROM chat_threads WHERE id = ${threadId} FOR UPDATE`;

/**
 * Writes the code action and posts its result in the same transaction, unless `source` (the message
 * holding it) was written already: then only an error result is posted.
 */
async function write(ctx: RequestContext, schema: GraphQLSchema, thread: ChatThread, source: ChatMessage, request: CodeActionRequest): Promise<void> {
  await runInMode(ctx, schema, 'WRITE', async (execution) => {
    await lockThread(execution.ctx, thread.id);
    const done = await execution.ctx.db.chatMessage.findFirst({
      where: { threadId: thread.id, id: { gt: source.id }, actionMode: 'write', actionError: false },
      select: { id: true },
    });
    if (done) {
      const refused: RunResult = { body: { error: `The code action of message ${source.id} was written already (message ${done.id})`, status: 409 }, failed: true, changes: [] };
      await post(execution.ctx, thread.id, 'write', refused);
      return;
    }
    const result = await runStep(execution, schema, request);
    await post(execution.ctx, thread.id, 'write', result, result.failed ? 'Nothing was written.' : undefined);
  });
}

/** A published message with a codeaction block: preview it, then write it when nothing needs approval. */
export async function runCodeAction(ctx: RequestContext, schema: GraphQLSchema, thread: ChatThread, message: ChatMessage): Promise<void> {
  const blocks = codeBlocksOfKind(message.message, 'codeaction');
  const block = blocks[blocks.length - 1];
  if (!block) return;
  const request = parseCodeAction(block.content);
  const preview = await runInMode(ctx, schema, 'PREVIEW', (execution) => runStep(execution, schema, request));
  if (!preview.failed && !preview.changes.some((c) => c.needsApproval)) return write(ctx, schema, thread, message, request);
  await post(ctx, thread.id, 'preview', preview);
}

/** A published message with an approvecodeaction block: write the thread's last codeaction block as the approver. */
export async function approveCodeAction(ctx: RequestContext, schema: GraphQLSchema, thread: ChatThread, message: ChatMessage): Promise<void> {
  const candidates = await ctx.db.chatMessage.findMany({
    // this message's own codeaction block counts: "run this, approved" writes it without a preview
    where: { threadId: thread.id, isDraft: false, id: { lte: message.id }, message: { contains: '```' } },
    orderBy: { id: 'desc' },
    select: { id: true, message: true },
    take: 200,
  });
  const source = candidates.find((m) => codeBlocksOfKind(m.message, 'codeaction').length);
  if (!source) {
    const none: RunResult = { body: { error: `Thread ${thread.id} has no codeaction block to approve`, status: 404 }, failed: true, changes: [] };
    await post(ctx, thread.id, 'write', none);
    return;
  }
  const blocks = codeBlocksOfKind(source.message, 'codeaction');
  await write(ctx, schema, thread, source as ChatMessage, parseCodeAction(blocks[blocks.length - 1].content));
}

