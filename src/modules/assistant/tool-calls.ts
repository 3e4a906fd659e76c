import type { GraphQLSchema } from 'graphql';
import { getDatamodel } from '../../generated/pothos-types.ts';
import { InsufficientScopeError, ValidationError } from '../../shared/errors.ts';
import { toCamel } from '../../shared/naming.ts';
import { jsonText } from '../../shared/json-text.ts';
import type { Toolbox, ToolEntry } from '../../mcp/tools.ts';
import { mayStore, toolErrorBody } from '../../mcp/tools.ts';
import { datamodel, type Change, type Execution } from './preview-execution.ts';
import type { ToolCall, ToolPreview, ToolResult } from './shapes.ts';

export type { ToolCall, ToolPreview, ToolResult } from './shapes.ts';

/**
 * The element shapes of a tool-calling chat message's tool_calls, tool_results and previews (spec
 * 002 "Message": "not shown"), close to OpenAI's chat-completions shapes so a client that knows those
 * reads them at once, and how a list of tool calls runs in an execution.
 */

/** Most tool calls one reply makes (all rounds together): the assistant stops there. */
export const MAX_TOOL_CALLS = 20;
/** The changes a message's previews or action items are assumed to list, for the cost of a query that selects them. */
export const ASSUMED_CHANGES = 40;

export const toPreview = (toolCallId: string, change: Change, mode: 'PREVIEW' | 'WRITE'): ToolPreview => ({
  tool_call_id: toolCallId,
  type: change.type,
  id: change.id,
  operation: change.operation,
  need_approval: mode === 'PREVIEW' && change.needsApproval,
  reasons: mode === 'PREVIEW' ? change.reasons : [],
});

/** One call as it ran: its result and the changes it made, for the message and for a later re-run. */
export interface CallOutcome {
  call: ToolCall;
  result: ToolResult;
  changes: Change[];
  /** the call changed something (or would have): a write re-runs it */
  writes: boolean;
}

/** The tools a caller may use: every tool with write, the read-only ones without (as tools/list on /mcp). */
export const toolsFor = (box: Toolbox, canWrite: boolean, exclude: ReadonlySet<string> = new Set()): ToolEntry[] =>
  box.tools.filter((t) => (canWrite || t.readOnly) && !exclude.has(t.module));

/**
 * Ids a preview showed are not the ids a later run creates (sequences move on; a rolled-back id is
 * never reused). When calls run again — the next round of a preview replays the earlier rounds, a
 * write re-runs the preview — each record a call created is paired with the one it created before
 * (same call, same position, same type), and the later calls' arguments that name the earlier id are
 * given the new one. An argument names a record of a type when it is `id` of a tool answering that
 * type, or `<relation>_id`/`<relation>_ids` where the data model's relation of that name points at the
 * type; any other `…_id` is rewritten only when exactly one type had that id.
 */
export class IdRemap {
  private readonly byType = new Map<string, Map<number, number>>();

  constructor(private readonly references: ReferenceTypes) {}

  learn(before: readonly Change[], now: readonly Change[]): void {
    before.forEach((old, i) => {
      const current = now[i];
      if (!current || current.type !== old.type || old.id === null || current.id === null || old.id === current.id) return;
      let ids = this.byType.get(old.type);
      if (!ids) this.byType.set(old.type, (ids = new Map()));
      ids.set(old.id, current.id);
    });
  }

  get empty(): boolean {
    return this.byType.size === 0;
  }

  /**
   * The arguments with every remapped id replaced (a new object; the given one is left as it is). A
   * top-level argument is judged by the GraphQL argument it is passed to (`tool.argumentNames`): `id`
   * names the tool's own record, `voucherId` a voucher. A nested `id` (a line's) is left alone.
   */
  rewrite(args: Record<string, unknown>, tool: Pick<ToolEntry, 'recordType' | 'argumentNames'>): Record<string, unknown> {
    if (this.empty) return args;
    const typesOf = (key: string, top: boolean): readonly string[] | undefined | null => {
      const name = top ? (tool.argumentNames?.[key] ?? key) : key;
      if (name === 'id') return top ? (tool.recordType ? [tool.recordType] : undefined) : null;
      return this.references.typesOf(name);
    };
    const walk = (value: unknown, key: string, top: boolean): unknown => {
      if (Array.isArray(value)) return value.map((v) => walk(v, key, top));
      if (value && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, walk(v, k, false)]));
      if (typeof value !== 'number') return value;
      const types = typesOf(key, top);
      return types === null ? value : this.replace(value, types);
    };
    return Object.fromEntries(Object.entries(args).map(([k, v]) => [k, walk(v, k, true)]));
  }

  private replace(id: number, types: readonly string[] | undefined): number {
    const candidates = [...this.byType].filter(([type, ids]) => ids.has(id) && (!types || types.includes(type)));
    return candidates.length === 1 ? candidates[0][1].get(id)! : id;
  }
}

/** Which record types an argument key refers to, from the data model's relations. */
export interface ReferenceTypes {
  /** the GraphQL types a key (`business_partner_id`, `payorId`, `voucher_ids`) may name; undefined: unknown reference; null: not a reference */
  typesOf(key: string): readonly string[] | undefined | null;
}

const referencesBySchema = new WeakMap<GraphQLSchema, ReferenceTypes>();

export function referenceTypes(schema: GraphQLSchema): ReferenceTypes {
  const known = referencesBySchema.get(schema);
  if (known) return known;
  const models = datamodel(schema);
  // scalar foreign key (camelCase) → the GraphQL types of the models it points at
  const byField = new Map<string, Set<string>>();
  for (const model of Object.values(getDatamodel().datamodel.models)) {
    for (const field of model.fields) {
      for (const from of field.relationFromFields ?? []) {
        const set = byField.get(from) ?? new Set<string>();
        for (const t of models.typesOf(field.type).length ? models.typesOf(field.type) : [field.type]) set.add(t);
        byField.set(from, set);
      }
    }
  }
  const references: ReferenceTypes = {
    typesOf(key) {
      const camel = toCamel(key);
      if (!/Ids?$/.test(camel)) return null;
      const single = camel.replace(/Ids$/, 'Id');
      const types = byField.get(single);
      return types ? [...types] : undefined;
    },
  };
  referencesBySchema.set(schema, references);
  return references;
}

/** A call's arguments as an object: the model's JSON text parsed (a 400 when it is not a JSON object). */
function parseArguments(call: ToolCall): Record<string, unknown> {
  let args: unknown;
  try {
    args = call.function.arguments.trim() ? JSON.parse(call.function.arguments) : {};
  } catch {
    throw ValidationError.field('arguments', 'are not valid JSON');
  }
  if (!args || typeof args !== 'object' || Array.isArray(args)) throw ValidationError.field('arguments', 'must be a JSON object');
  return args as Record<string, unknown>;
}

/**
 * Runs one tool call as a step of the execution: the tool is looked up among `tools` (an unknown or
 * withheld one is a tool error, as on /mcp), its arguments rewritten by `remap`, and its result or
 * error becomes the call's result. A write tool needs the execution actor's write scope.
 */
export async function runToolCall(execution: Execution, tools: ReadonlyMap<string, ToolEntry>, call: ToolCall, remap: IdRemap): Promise<CallOutcome> {
  const entry = tools.get(call.function.name);
  const outcome = await execution.step(async (ctx) => {
    if (!entry) throw ValidationError.field('name', `no tool '${call.function.name}'`);
    if (!entry.readOnly && !ctx.actor.scopes.has('write')) throw new InsufficientScopeError('write');
    const args = remap.rewrite(parseArguments(call), entry);
    return entry.call(ctx, args);
  });
  const body = outcome.ok ? outcome.value : toolErrorBody(execution.ctx, outcome.error, entry?.errorShape);
  return {
    call,
    result: { tool_call_id: call.id, name: call.function.name, is_error: !outcome.ok, content: jsonText(body ?? null) },
    changes: outcome.changes,
    writes: outcome.ok && (mayStore(entry) || outcome.changes.length > 0),
  };
}

/**
 * Runs calls that ran before again, in order (a replay in the next round of a preview, or the write
 * of an approved preview), pairing the records each creates with those it created before so later
 * calls name the new ones. Returns the outcomes and the remap, which the calls after them use too.
 */
export async function rerunCalls(
  execution: Execution,
  tools: ReadonlyMap<string, ToolEntry>,
  earlier: readonly { call: ToolCall; changes: readonly Change[] }[],
  remap: IdRemap,
): Promise<CallOutcome[]> {
  const outcomes: CallOutcome[] = [];
  for (const before of earlier) {
    const now = await runToolCall(execution, tools, before.call, remap);
    remap.learn(before.changes, now.changes);
    outcomes.push(now);
  }
  return outcomes;
}
