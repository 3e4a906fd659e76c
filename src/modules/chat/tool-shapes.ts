import { z } from 'zod';

/**
 * The element shapes of a chat message's tool_calls, tool_results, previews and action_items (spec
 * 002 "Message": "not shown"), close to OpenAI's chat-completions shapes: what the assistant and code
 * actions store, what postMessage accepts from trusted callers (chat.rules.ts), and what the GraphQL
 * types show (assistant.types.ts). A file of its own, with nothing but zod, so the chat's rules can
 * use it without loading the assistant.
 */

/** Most tool calls one assistant reply makes (all rounds together): the assistant stops there. */
export const MAX_TOOL_CALLS = 20;
/** The changes a message's previews or action items are assumed to list, for the cost of a query that selects them. */
export const ASSUMED_CHANGES = 40;

/** Why a change needs approval (src/assistant/preview-execution.ts). */
export const APPROVAL_REASONS = ['destructive', 'final', 'external'] as const;
export type ApprovalReason = (typeof APPROVAL_REASONS)[number];

/** One call the assistant made: OpenAI's `tool_calls` element (arguments as the JSON text the model wrote). */
export const toolCallShape = z.object({
  id: z.string().min(1),
  type: z.literal('function'),
  function: z.object({ name: z.string().min(1), arguments: z.string() }),
});

/** What one call answered: OpenAI's `tool` message (content: the REST body as JSON text, as the model saw it) plus the tool's name and whether it failed. */
export const toolResultShape = z.object({
  tool_call_id: z.string().min(1),
  name: z.string().min(1),
  is_error: z.boolean(),
  content: z.string(),
});

/** One change a call makes (PREVIEW) or made (WRITE). */
export const toolPreviewShape = z.object({
  tool_call_id: z.string().min(1),
  /** GraphQL type of the record (Document, Project …) */
  type: z.string().min(1),
  id: z.number().int().nullable(),
  /** the mutation field behind the tool (createDocument …) */
  operation: z.string().min(1),
  /** in a PREVIEW message: whether writing it needs the user's approval; always false in a WRITE message */
  need_approval: z.boolean({ error: 'must be a boolean (every preview says whether it needs approval)' }),
  /** why it needs approval (empty when it does not) */
  reasons: z.array(z.enum(APPROVAL_REASONS)),
});

/** One change of a code action: a preview object of its coderesult block. */
export const actionItemShape = z.object({
  type: z.string().min(1),
  needs_approval: z.boolean(),
  id: z.number().int().nullable(),
});

export type ToolCall = z.infer<typeof toolCallShape>;
export type ToolResult = z.infer<typeof toolResultShape>;
export type ToolPreview = z.infer<typeof toolPreviewShape>;
export type ActionItem = z.infer<typeof actionItemShape>;
