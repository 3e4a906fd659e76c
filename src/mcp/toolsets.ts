import type { Tool } from '@modelcontextprotocol/sdk/types.js';
import { boundedMessage, ValidationError } from '../shared/errors.ts';
import { READ_ONLY, type Toolbox, type ToolEntry } from './tools.ts';

/**
 * Toolsets: the tools of one module (the first path segment of its operations' REST paths: items,
 * journal-entries …) form a toolset, as in GitHub's MCP server (`--toolsets`, and its dynamic
 * toolsets `list_available_toolsets`, `get_toolset_tools`, `enable_toolset`). All 152 tools cost a
 * model some 57,000 tokens on every turn, so tools/list shows the default toolsets, the two GraphQL
 * tools and three tools that reach the rest:
 *
 * - `list_toolsets` (read-only): every toolset, what it is for and its tools; with `toolset`, the
 *   descriptions of that one's tools.
 * - `describe_operation {name}` (read-only): one tool's description, input and output schema.
 * - `call_operation {name, arguments}`: calls any tool by name, with the scope rule and validation
 *   of the tool itself (a read-only token gets the same 403 tool error for a write).
 *
 * GitHub's `enable_toolset` changes the list a session sees; /mcp is stateless (no session outlives a
 * request), so a tool cannot change a later request's list. An agent reaches an unlisted tool in-band
 * with call_operation, or its host lists the toolsets it wants with `?modules=` on the endpoint URL
 * (`?modules=all`: every tool).
 */

/** What each toolset is for, as list_toolsets tells a model (a module without a line here fails test/mcp/toolsets.test.ts). */
export const TOOLSET_DESCRIPTIONS: Readonly<Record<string, string>> = {
  'client-accounts': 'Notification settings of a client account',
  vouchers: 'Vouchers (uploaded receipts and invoices awaiting booking): list, read, explain (statements), merge, split, delete',
  'journal-entries': 'The general ledger postings: list, read, create (balanced lines), update drafts, cancel by reversal',
  reports: 'Balance sheet, income statement, trial balance, general ledger, payables, receivables, SAF-T export',
  'bulk-posting': 'Posting up to 1,000 journal entries in one call, all or nothing or the valid ones',
  'saft-imports': 'Importing a SAF-T Financial file into a client account (all or nothing), its status and errors',
  'bank-transactions': 'Bank transactions of the company accounts and their explanations (statements)',
  tasks: 'Tasks of a client account: to-dos for the bookkeeper and the client',
  documents: 'Sales and purchase documents (invoices, credit notes, offers): create, preview as PDF, finalize, update',
  reconciliations: 'Reconciling journal entry lines against each other (open items), with exchange differences',
  items: 'Items (products and services) sold on documents',
  units: 'Units of measure (UN/ECE codes)',
  'item-collections': 'Item collections (templates, carts, orders) and their entries',
  projects: 'Projects (a dimension of postings)',
  departments: 'Departments (a dimension of postings)',
  'bank-statements': 'Importing a bank statement with its transactions',
  files: 'Uploading a file (voucher, attachment, chat attachment)',
  'voucher-collections': 'Voucher collections (folders of vouchers)',
  invitations: 'Invitations of users to a client account, and accepting one',
  contributor: 'Worker tasks for contributors (reviewing vouchers and other work items)',
  chat: 'Chat threads of a client account, their messages and participants',
  integrations: 'Connections to public registers, identity provider, banks and e-invoicing: status and authorization',
  'yearly-accounts': 'Yearly accounts: preview, notes, drafts, submission to the register, annual allocation',
  'tax-returns': 'Tax returns: prefilled data, preview, validation, submission, import',
  payroll: 'Payroll contracts and wage garnishments',
  equity: 'Share capital: issuances, transfers, buybacks, splits, positions and cap table',
  changes: "The change feed: every write of a client account's data, oldest first in commit order, ids only (what changed since a cursor)",
  webhooks: "Webhooks: signed POSTs of a client account's changes to a URL; subscribe, rotate the secret, see and retry deliveries",
};

/** The toolsets tools/list shows without `?modules=`: the day-to-day bookkeeping an agent does most. */
export const DEFAULT_TOOLSETS: readonly string[] = ['vouchers', 'journal-entries', 'reports'];

/** The module of the two GraphQL tools and of the three below: listed whatever `?modules=` names. */
const ALWAYS = new Set(['graphql', 'toolsets']);

/**
 * The toolsets a `?modules=` value names (module names as on REST, also in snake_case, camelCase or capitals), `all`
 * for every one; undefined (no parameter): the default toolsets.
 */
export function listedToolsets(modules: string | undefined): ReadonlySet<string> | 'all' {
  if (modules === undefined) return new Set(DEFAULT_TOOLSETS);
  const names = modules
    .split(/[,; ]+/)
    .filter(Boolean)
    .map((m) => m.replace(/([a-z\d])([A-Z])/g, '$1-$2').toLowerCase().replace(/_/g, '-'));
  return names.includes('all') ? 'all' : new Set(names);
}

/** The tools tools/list shows to a caller: its toolsets' tools it may call, and the ones always listed. */
export function listedTools(all: readonly ToolEntry[], canWrite: boolean, toolsets: ReadonlySet<string> | 'all'): ToolEntry[] {
  return all.filter((t) => (canWrite || t.readOnly) && (toolsets === 'all' || ALWAYS.has(t.module) || toolsets.has(t.module)));
}

const object = (properties: Record<string, unknown>, required: string[]): Tool['inputSchema'] => ({ type: 'object', properties, required, additionalProperties: false }) as Tool['inputSchema'];

/** Arguments of a meta tool: only the named keys, each a string where given. */
function stringArguments(args: Record<string, unknown>, allowed: readonly string[], required: readonly string[]): Record<string, string | undefined> {
  const out: Record<string, string | undefined> = {};
  const issues: string[] = [];
  for (const key of Object.keys(args)) if (!allowed.includes(key)) issues.push(`${boundedMessage(key)}: is not an argument of this tool`);
  for (const key of allowed) {
    const value = args[key];
    if (value === undefined || value === null) {
      if (required.includes(key)) issues.push(`${key}: is required`);
    } else if (typeof value !== 'string') issues.push(`${key}: must be a string`);
    else out[key] = value;
  }
  if (issues.length) throw new ValidationError(issues.join('; '));
  return out;
}

/** The tool a name names (an operation's or a GraphQL tool), or a 400 naming the argument. */
function named(box: Toolbox, name: string): ToolEntry {
  const entry = box.byName.get(name);
  if (!entry) throw ValidationError.field('name', `no tool is named ${JSON.stringify(boundedMessage(name))}; list_toolsets lists them`);
  return entry;
}

/**
 * The tool call_operation runs and its arguments. The endpoint then runs it as a call of that tool:
 * its scope check (a read-only token gets the tool's own 403 error), its validation, its error shape.
 */
export function resolveOperation(box: Toolbox, args: Record<string, unknown>): { entry: ToolEntry; args: Record<string, unknown> } {
  const issues = Object.keys(args).filter((k) => k !== 'name' && k !== 'arguments');
  if (issues.length) throw new ValidationError(issues.map((k) => `${boundedMessage(k)}: is not an argument of this tool`).join('; '));
  if (typeof args.name !== 'string') throw ValidationError.field('name', 'is required: the name of a tool (list_toolsets lists them)');
  const entry = named(box, args.name);
  const inner = args.arguments ?? {};
  if (typeof inner !== 'object' || Array.isArray(inner)) throw ValidationError.field('arguments', "must be a JSON object: the tool's arguments");
  return { entry, args: inner as Record<string, unknown> };
}

/**
 * list_toolsets, describe_operation and call_operation for a caller (read-only token or not: which
 * tools it may call, and whether call_operation is annotated read-only). call_operation's `call` is
 * never run: the endpoint resolves it to the named tool first (resolveOperation).
 */
export function metaTools(box: Toolbox, canWrite: boolean, toolsets: ReadonlySet<string> | 'all'): ToolEntry[] {
  const callable = (t: ToolEntry) => canWrite || t.readOnly;
  const modules = box.modules.filter((m) => !ALWAYS.has(m));
  const listed = (m: string) => toolsets === 'all' || toolsets.has(m);
  const common = { module: 'toolsets', errorShape: 'simple' as const };
  const listToolsets: ToolEntry = {
    ...common,
    readOnly: true,
    tool: {
      name: 'list_toolsets',
      description:
        'Lists every toolset (a module of the API) with what it is for, whether tools/list shows it, and its tools; with toolset, the descriptions of that toolset\'s tools. Call an unlisted tool with call_operation (describe_operation gives its arguments), or add ?modules=<toolset> (or all) to the endpoint URL to list it.',
      inputSchema: object({ toolset: { type: 'string', description: 'a toolset name: describe its tools' } }, []),
      outputSchema: {
        type: 'object',
        properties: {
          toolsets: { type: 'array', items: { type: 'object', properties: { name: { type: 'string' }, description: { type: 'string' }, listed: { type: 'boolean' }, tools: { type: 'array' } }, required: ['name', 'description', 'listed', 'tools'] } },
        },
        required: ['toolsets'],
      },
      annotations: READ_ONLY,
    },
    async call(_ctx, args) {
      const { toolset } = stringArguments(args, ['toolset'], []);
      if (toolset !== undefined && !modules.includes(toolset)) throw ValidationError.field('toolset', `no toolset is named ${JSON.stringify(boundedMessage(toolset))}; the toolsets: ${modules.join(', ')}`);
      const shown = toolset === undefined ? modules : [toolset];
      return {
        toolsets: shown.map((m) => {
          const tools = box.tools.filter((t) => t.module === m && callable(t));
          return {
            name: m,
            description: TOOLSET_DESCRIPTIONS[m] ?? m,
            listed: listed(m),
            tools: toolset === undefined ? tools.map((t) => t.tool.name) : tools.map((t) => ({ name: t.tool.name, description: t.tool.description, read_only: t.readOnly })),
          };
        }),
      };
    },
  };
  const describeOperation: ToolEntry = {
    ...common,
    readOnly: true,
    tool: {
      name: 'describe_operation',
      description: "A tool's description, input schema (the arguments call_operation takes for it), output schema and annotations, listed or not.",
      inputSchema: object({ name: { type: 'string', description: 'the tool, e.g. list_documents' } }, ['name']),
      outputSchema: {
        type: 'object',
        properties: { name: { type: 'string' }, toolset: { type: 'string' }, description: { type: 'string' }, inputSchema: { type: 'object' }, outputSchema: { type: 'object' }, annotations: { type: 'object' } },
        required: ['name', 'toolset', 'description', 'inputSchema'],
      },
      annotations: READ_ONLY,
    },
    async call(_ctx, args) {
      const { name } = stringArguments(args, ['name'], ['name']);
      const entry = named(box, name!);
      const { tool } = entry;
      return {
        name: tool.name,
        toolset: entry.module,
        description: tool.description ?? tool.name,
        ...(entry.rest ? { rest: entry.rest } : {}),
        inputSchema: entry.fullInputSchema ?? tool.inputSchema,
        ...(entry.fullOutputSchema || tool.outputSchema ? { outputSchema: entry.fullOutputSchema ?? tool.outputSchema } : {}),
        ...(tool.annotations ? { annotations: tool.annotations } : {}),
        ...(callable(entry) ? {} : { callable: false, why: 'needs a token with the write scope' }),
      };
    },
  };
  const callOperation: ToolEntry = {
    ...common,
    readOnly: !canWrite,
    tool: {
      name: 'call_operation',
      description: `Calls a tool by name, listed or not, with its arguments (describe_operation gives their schema); answers what the tool answers. ${
        canWrite ? 'Writes need the approval a write tool needs.' : 'This token is read-only: only read-only tools can be called.'
      }`,
      inputSchema: object({ name: { type: 'string', description: 'the tool, e.g. create_document' }, arguments: { type: 'object', description: "the tool's arguments" } }, ['name']),
      outputSchema: { type: 'object', description: "the tool's structuredContent" },
      annotations: canWrite ? { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: false } : READ_ONLY,
    },
    call() {
      throw new Error('call_operation is resolved to the tool it names before it runs (resolveOperation)');
    },
  };
  return [listToolsets, describeOperation, callOperation];
}
