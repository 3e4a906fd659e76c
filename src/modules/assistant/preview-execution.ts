import { defaultFieldResolver, getNamedType, isObjectType, type GraphQLResolveInfo, type GraphQLSchema } from 'graphql';
import type { Db } from '../../db/database.ts';
import { getDatamodel } from '../../generated/pothos-types.ts';
import { observeEnqueues, type JobDefinition } from '../../jobs/jobs.ts';
import { createRequestContext, inTransaction, isTransaction, type RequestContext } from '../../shared/context.ts';
import { isStoresNothing } from '../../builder.ts';
import { destructiveMutationField } from '../../mcp/tools.ts';
import type { ApprovalReason } from './shapes.ts';

/**
 * Preview execution: runs GraphQL operations and tool calls (code actions, the chat assistant's tool
 * calls) inside one database transaction and records what they change.
 *
 * - PREVIEW: the transaction is rolled back at the end (a sentinel thrown out of it), so nothing is
 *   written; jobs the services enqueue are rows of that transaction and vanish with it. Sequences
 *   are not transactional, so the ids a preview shows are burned, never reused.
 * - WRITE: the same, committed.
 *
 * Every mutation root field that runs in such a transaction is one change (but a field marked
 * `storesNothing`, such as previewDocument: a mutation only because its REST entry is a POST), recorded by a wrapper
 * around the schema's mutation resolvers (installed once; outside an execution it only passes the
 * call on): the record it returned (its GraphQL type and id; for a field answering a boolean, the
 * `id` argument and the type its name ends with), and whether it needs approval:
 *
 * - `destructive`: the field removes or replaces records. The operation table says so (a DELETE, or
 *   an entry marked `destructive`: merging or splitting vouchers), which is also the MCP tools'
 *   `destructiveHint`; a mutation field no operation runs counts as the `graphql_mutation` tool that
 *   reaches it is annotated: destructive.
 * - `final`: the record is left posted, finalized or committed: its model has `is_draft` and the
 *   record is no draft after the change (a document created with is_draft false, a posted journal
 *   entry, a committed reconciliation). Drafts and master data (partners, items, projects …) are not.
 * - `external`: the change enqueued a job defined `external` (mail.send, documents.send, the SaFT
 *   export by mail): it would leave the system and cannot be called back.
 *
 * Each mutation field runs under a savepoint, so a field that fails leaves the transaction usable for
 * the next (PostgreSQL aborts a transaction on a failed statement otherwise).
 */

export type ExecutionMode = 'PREVIEW' | 'WRITE';

/** Why a change needs approval (see the module comment). */
export type { ApprovalReason } from './shapes.ts';

/** One change an execution made or would make: a preview object. */
export interface Change {
  /** the GraphQL type of the record changed (Document, JournalEntry …), or the mutation field when there is none */
  type: string;
  /** the record's id, when the change names one */
  id: number | null;
  /** the mutation field that made it (createDocument, deleteVoucher …) */
  operation: string;
  needsApproval: boolean;
  reasons: ApprovalReason[];
}

/** How one step of an execution went. */
export type StepOutcome<T> = { ok: true; value: T; changes: Change[] } | { ok: false; error: unknown; changes: Change[] };

export interface Execution {
  readonly mode: ExecutionMode;
  /** the context bound to the execution's transaction (the actor of the context it was started with) */
  readonly ctx: RequestContext;
  /**
   * Runs one step (a tool call, a GraphQL document) under a savepoint: when it throws, what it did is
   * rolled back and the execution goes on. Returns its value or error and the changes it made.
   */
  step<T>(run: (ctx: RequestContext) => Promise<T>): Promise<StepOutcome<T>>;
  /** every change so far, in order */
  readonly changes: readonly Change[];
}

/** Thrown out of a preview's transaction so Prisma rolls it back; carries the block's value out. */
class PreviewRollback {
  constructor(readonly value: unknown) {}
}

/** A preview or write may run several tool calls; Prisma's default 5 s per transaction is too short. */
const TRANSACTION_TIMEOUT_MS = 60_000;

/**
 * Runs `block` in one transaction in the given mode and returns its value. The context given must not
 * be inside a transaction: a preview needs a transaction of its own to roll back. The block's context
 * does not share the caller's memo of eligible accounts, so a membership a preview creates and rolls
 * back is never seen by the caller.
 */
export async function runInMode<T>(ctx: RequestContext, schema: GraphQLSchema, mode: ExecutionMode, block: (execution: Execution) => Promise<T>): Promise<T> {
  if (isTransaction(ctx.db)) throw new Error('runInMode needs a context outside a transaction');
  recordMutations(schema);
  const isDestructive = destructiveMutationField(schema);
  const fresh = createRequestContext({ db: ctx.db, actor: ctx.actor, requestId: ctx.requestId, logger: () => ctx.logger, limits: ctx.limits, reference: ctx.reference, files: ctx.files });
  try {
    return await inTransaction(
      fresh,
      async (tx) => {
        const recorder = new Recorder(tx, mode, isDestructive, datamodel(schema));
        recorders.set(tx, recorder);
        const stopObserving = observeEnqueues(tx.db, (job) => recorder.enqueued(job));
        try {
          const value = await block(recorder);
          if (mode === 'PREVIEW') throw new PreviewRollback(value);
          return value;
        } finally {
          stopObserving();
          recorders.delete(tx);
        }
      },
      { timeoutMs: TRANSACTION_TIMEOUT_MS },
    );
  } catch (e) {
    if (e instanceof PreviewRollback) return e.value as T;
    throw e;
  }
}

/** The recorder of the execution a context belongs to (the context object given to GraphQL's execute). */
const recorders = new WeakMap<object, Recorder>();

/** The GraphQL object types of the Prisma models (plugin-prisma's extension), and the models with drafts. */
export interface Models {
  /** GraphQL object type → Prisma model */
  modelOf(type: string): string | undefined;
  /** Prisma model → its GraphQL object types */
  typesOf(model: string): readonly string[];
  /** models with an isDraft field */
  draftable: ReadonlySet<string>;
}

const modelsBySchema = new WeakMap<GraphQLSchema, Models>();
export function datamodel(schema: GraphQLSchema): Models {
  const known = modelsBySchema.get(schema);
  if (known) return known;
  const byType = new Map<string, string>();
  const byModel = new Map<string, string[]>();
  for (const type of Object.values(schema.getTypeMap())) {
    const model = isObjectType(type) ? (type.extensions as { pothosPrismaModel?: string }).pothosPrismaModel : undefined;
    if (!model) continue;
    byType.set(type.name, model);
    byModel.set(model, [...(byModel.get(model) ?? []), type.name]);
  }
  const draftable = new Set<string>();
  for (const [name, model] of Object.entries(getDatamodel().datamodel.models)) {
    if (model.fields.some((f) => f.name === 'isDraft' && f.type === 'Boolean')) draftable.add(name);
  }
  const models: Models = { modelOf: (type) => byType.get(type), typesOf: (model) => byModel.get(model) ?? [], draftable };
  modelsBySchema.set(schema, models);
  return models;
}

const lowerFirst = (s: string) => s.charAt(0).toLowerCase() + s.slice(1);

class Recorder implements Execution {
  readonly changes: Change[] = [];
  /** jobs enqueued by the mutation field running now, or by the step outside any field */
  private jobs: JobDefinition<any>[] = [];
  private savepoints = 0;

  constructor(
    readonly ctx: RequestContext,
    readonly mode: ExecutionMode,
    private readonly isDestructive: (field: string) => boolean,
    private readonly models: Models,
  ) {}

  enqueued(job: JobDefinition<any>) {
    this.jobs.push(job);
  }

  private async savepoint<T>(run: () => Promise<T>): Promise<T> {
    const db = this.ctx.db as Db;
    const name = `execution_${++this.savepoints}`;
    await db.$executeRawUnsafe(`SAVEPOINT ${name}`);
    try {
      const value = await run();
      await db.$executeRawUnsafe(`RELEASE SAVEPOINT ${name}`);
      return value;
    } catch (e) {
      await db.$executeRawUnsafe(`ROLLBACK TO SAVEPOINT ${name}`);
      throw e;
    }
  }

  async step<T>(run: (ctx: RequestContext) => Promise<T>): Promise<StepOutcome<T>> {
    const from = this.changes.length;
    const outer = this.jobs;
    this.jobs = [];
    try {
      const value = await this.savepoint(() => run(this.ctx));
      // a job a step enqueued outside any mutation field (a query that mails an export) is a change of its own
      const external = this.jobs.find((j) => j.options.external);
      if (external) this.changes.push({ type: external.name, id: null, operation: 'enqueue', needsApproval: true, reasons: ['external'] });
      return { ok: true, value, changes: this.changes.slice(from) };
    } catch (error) {
      this.changes.length = from;
      return { ok: false, error, changes: [] };
    } finally {
      this.jobs = outer;
    }
  }

  /** One mutation root field: run under a savepoint, then record what it returned and judge it. */
  async mutation(info: GraphQLResolveInfo, args: Record<string, unknown>, resolve: () => Promise<unknown>): Promise<unknown> {
    const outer = this.jobs;
    this.jobs = [];
    try {
      const value = await this.savepoint(resolve);
      const fieldJobs = this.jobs;
      const type = this.recordType(info);
      const records = (Array.isArray(value) ? value : [value]).map((v) => {
        const id = v && typeof v === 'object' && typeof (v as { id?: unknown }).id === 'number' ? (v as { id: number }).id : typeof args.id === 'number' ? args.id : null;
        return id;
      });
      for (const id of records) this.changes.push(await this.judge(info.fieldName, type, id, fieldJobs));
      return value;
    } finally {
      this.jobs = outer;
    }
  }

  /** The type of the record a field changes: its object return type, else the type its name ends with (deleteDocument → Document). */
  private recordType(info: GraphQLResolveInfo): string {
    const returned = getNamedType(info.returnType);
    if (isObjectType(returned)) return returned.name;
    const named = info.fieldName.replace(/^[a-z]+/, '');
    return named && isObjectType(info.schema.getType(named)) ? named : info.fieldName;
  }

  private async judge(operation: string, type: string, id: number | null, jobs: JobDefinition<any>[]): Promise<Change> {
    const reasons: ApprovalReason[] = [];
    if (this.isDestructive(operation)) reasons.push('destructive');
    const model = this.models.modelOf(type);
    if (model && id !== null && this.models.draftable.has(model)) {
      const delegate = (this.ctx.db as unknown as Record<string, { findUnique(args: unknown): Promise<{ isDraft: boolean } | null> }>)[lowerFirst(model)];
      const row = await delegate.findUnique({ where: { id }, select: { isDraft: true } });
      if (row && !row.isDraft) reasons.push('final');
    }
    if (jobs.some((j) => j.options.external)) reasons.push('external');
    return { type, id, operation, needsApproval: reasons.length > 0, reasons };
  }
}

const instrumented = new WeakSet<GraphQLSchema>();

/**
 * Wraps every mutation root field's resolver once, but those marked `storesNothing` (src/builder.ts):
 * inside an execution (its context has a recorder) the field runs under a savepoint and is recorded;
 * anywhere else the wrapper only calls the resolver.
 */
function recordMutations(schema: GraphQLSchema): void {
  if (instrumented.has(schema)) return;
  instrumented.add(schema);
  for (const field of Object.values(schema.getMutationType()?.getFields() ?? {})) {
    // a field that stores nothing (a preview PDF, a question to the tax authority) is no change
    if (isStoresNothing(field)) continue;
    const resolve = field.resolve ?? defaultFieldResolver;
    field.resolve = (source, args, context, info) => {
      const recorder = recorders.get(context as object);
      if (!recorder) return resolve(source, args, context, info);
      return recorder.mutation(info, args, async () => resolve(source, args, context, info));
    };
  }
}
