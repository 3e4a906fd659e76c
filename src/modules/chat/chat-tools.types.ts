import { builder } from '../../builder.ts';
import { type ActionItem, type ApprovalReason, type ToolCall, type ToolPreview, type ToolResult } from './tool-shapes.ts';

/**
 * The element shapes of a chat message's tool_calls, tool_results, previews and action_items
 * (tool-shapes.ts) as GraphQL types. The messages store them as JSON with snake_case keys.
 */

export const ChatApprovalReasonEnum = builder.enumType('ChatApprovalReason', {
  description: 'Why a change needs the user’s approval before it is written',
  values: {
    destructive: { description: 'it removes or replaces records: a DELETE of the REST table, merging or splitting vouchers (MCP destructiveHint), or a GraphQL mutation the REST table does not offer' },
    final: { description: 'it leaves a record posted, finalized or committed (a record with is_draft that is no draft afterwards)' },
    external: { description: 'it sends something out of the system (mail, a document to its recipient)' },
  } satisfies Record<ApprovalReason, unknown>,
  // (APPROVAL_REASONS lists the same values for the stored JSON)
});

const ChatToolCallFunction = builder.objectRef<ToolCall['function']>('ChatToolCallFunction').implement({
  description: 'The tool a call named and its arguments',
  fields: (t) => ({
    name: t.exposeString('name', { description: 'the tool: an MCP tool of POST /mcp (list_documents, create_document, graphql_query …)' }),
    arguments: t.exposeString('arguments', { description: 'the arguments as the JSON text the model wrote (REST wire names, as on /mcp)' }),
  }),
});

export const ChatToolCallRef = builder.objectRef<ToolCall>('ChatToolCall').implement({
  description: 'One tool call of the assistant (OpenAI’s tool_calls element)',
  fields: (t) => ({
    id: t.exposeString('id', { description: 'the call’s id, unique in the thread; tool_results and previews name it' }),
    type: t.exposeString('type', { description: 'always function' }),
    function: t.field({ type: ChatToolCallFunction, resolve: (c) => c.function }),
  }),
});

export const ChatToolResultRef = builder.objectRef<ToolResult>('ChatToolResult').implement({
  description: 'What one tool call answered (OpenAI’s tool message, with the tool’s name and whether it failed)',
  fields: (t) => ({
    toolCallId: t.string({ description: 'the call (tool_calls[].id)', resolve: (r) => r.tool_call_id }),
    name: t.exposeString('name', { description: 'the tool called' }),
    isError: t.boolean({ description: 'the call failed; content is the error body {error, status}', resolve: (r) => r.is_error }),
    content: t.exposeString('content', { description: 'the answer as JSON text: the REST response body of the operation (or the error body)' }),
  }),
});

export const ChatToolPreviewRef = builder.objectRef<ToolPreview>('ChatToolPreview').implement({
  description: 'One change a tool call would make (PREVIEW message) or made (WRITE message)',
  fields: (t) => ({
    toolCallId: t.string({ description: 'the call that makes it (tool_calls[].id)', resolve: (p) => p.tool_call_id }),
    type: t.exposeString('type', { description: 'the GraphQL type of the record (Document, JournalEntry, Project …)' }),
    id: t.int({ nullable: true, description: 'the record’s id (in a PREVIEW a provisional id: the write creates another)', resolve: (p) => p.id }),
    operation: t.exposeString('operation', { description: 'the GraphQL mutation behind the tool (createDocument …)' }),
    needApproval: t.boolean({ description: 'writing it needs a user’s approval (always false in a WRITE message)', resolve: (p) => p.need_approval }),
    reasons: t.field({ type: [ChatApprovalReasonEnum], description: 'why it needs approval; empty when it does not', resolve: (p) => p.reasons ?? [] }),
  }),
});

export const ChatActionItemRef = builder.objectRef<ActionItem>('ChatActionItem').implement({
  description: 'One change of a code action (legacy): a preview object of its coderesult block',
  fields: (t) => ({
    type: t.exposeString('type', { description: 'the GraphQL type of the record (Document, JournalEntry …)' }),
    needsApproval: t.boolean({ description: 'writing it needs approval (an approvecodeaction message); false once written', resolve: (i) => i.needs_approval }),
    id: t.int({ nullable: true, description: 'the record’s id (in a preview a provisional id)', resolve: (i) => i.id }),
  }),
});
