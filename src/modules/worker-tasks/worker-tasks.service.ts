import { sqlPosition } from '../../shared/sql-pagination.ts';
import { Prisma as PrismaNS } from '../../generated/prisma/client.ts';
import { auditUserId, inTransaction, type RequestContext } from '../../shared/context.ts';
import { ValidationError } from '../../shared/errors.ts';
import { findPage, inIdOrder, pageWindow, toOrderBy } from '../../shared/pagination.ts';
import { canAccessAccount, listedAccounts, requireAccount, requireOwned } from '../../shared/tenancy.ts';
import { check, parse, validate, type Args } from '../../shared/validation.ts';
import { recordChange } from '../changes/changes.service.ts';
import {
  agreedHash,
  dataHash,
  DEFAULT_WORKER_TASK_ORDER,
  isRecordRelation,
  ownTaskType,
  patchProblem,
  RELATION_TYPES,
  submissionProblem,
  WORKER_TASK_ORDER,
  WORKER_TASK_PAGE_LIMITS,
  WORKER_TASK_TYPES,
  workerTaskRules as rules,
  type RelationType,
} from './worker-tasks.rules.ts';

type Query = { include?: PrismaNS.WorkerTaskInclude; select?: PrismaNS.WorkerTaskSelect };
type ResultQuery = { include?: PrismaNS.WorkerTaskResultInclude; select?: PrismaNS.WorkerTaskResultSelect };

const sql = PrismaNS.sql;
const join = PrismaNS.join;

// ── Relations: the record a task is about decides its client account ─────────────────────────────

const RELATION_NAMES: Record<RelationType, string> = {
  voucher: 'voucher',
  document: 'document',
  bank_transaction: 'bank transaction',
  journal_entry: 'journal entry',
  businesspartner: 'business partner',
};

/** The client account of the record a relation names, or null when there is none (a deleted voucher is none). */
async function relationAccount(ctx: RequestContext, type: RelationType, id: number): Promise<number | null> {
  const select = { clientAccountId: true } as const;
  const row = await (type === 'voucher'
    ? ctx.db.voucher.findFirst({ where: { id, status: { not: 'DELETED' } }, select })
    : type === 'document'
      ? ctx.db.document.findUnique({ where: { id }, select })
      : type === 'bank_transaction'
        ? ctx.db.bankTransaction.findUnique({ where: { id }, select })
        : type === 'journal_entry'
          ? ctx.db.journalEntry.findUnique({ where: { id }, select })
          : ctx.db.businessPartner.findUnique({ where: { id }, select }));
  return row?.clientAccountId ?? null;
}

// ── Reading ──────────────────────────────────────────────────────────────────────────────────────

/** 404 when missing, 403 when its client account is not one of the caller's. */
export async function getWorkerTask(ctx: RequestContext, { id }: { id: number }, query: Query = {}) {
  return requireOwned(ctx, `Worker task ${id}`, await ctx.db.workerTask.findUnique({ ...query, where: { id } }));
}

/**
 * GET /worker/tasks (spec 002): the tasks of the caller's client accounts, filtered in SQL on the
 * task (`t`) and its results; the page of ids is chosen in one query (downplay_results_from_id puts
 * tasks with a result of that user last), then the rows are read with what was selected.
 */
export async function listWorkerTasks(ctx: RequestContext, args: Args<typeof rules.list>, query: Query = {}) {
  const a = parse(rules.list, args);
  const accounts = await listedAccounts(ctx, a.clientAccountId == null ? null : [a.clientAccountId]);
  const me = ctx.actor.userId;
  const where: PrismaNS.Sql[] = [];
  const resultsOf = (extra: PrismaNS.Sql = sql``) => sql`EXISTS (SELECT 1 FROM worker_task_results r WHERE r.task_id = t.id ${extra})`;

  if (accounts) where.push(sql`t.client_account_id = ANY(${accounts}::int[])`);
  if (a.status?.length) where.push(sql`t.status::text = ANY(${[...new Set(a.status)]}::text[])`);
  if (a.taskType?.length) where.push(sql`t.task_type::text = ANY(${[...new Set(a.taskType)]}::text[])`);
  if (a.hasSubmittedResults != null) where.push(a.hasSubmittedResults ? resultsOf() : sql`NOT ${resultsOf()}`);
  if (a.hasResultsFromId != null) where.push(resultsOf(sql`AND r.submitted_by_id = ${a.hasResultsFromId}`));
  if (a.hasNoResultsFromId != null) where.push(sql`NOT ${resultsOf(sql`AND r.submitted_by_id = ${a.hasNoResultsFromId}`)}`);
  if (a.lessThanResultsFromMe != null) {
    where.push(sql`(SELECT count(*) FROM worker_task_results r WHERE r.task_id = t.id AND r.submitted_by_id = ${me}) < ${a.lessThanResultsFromMe}`);
  }

  const order = [
    ...(a.downplayResultsFromId != null ? [sql`${resultsOf(sql`AND r.submitted_by_id = ${a.downplayResultsFromId}`)} ASC`] : []),
    ...toOrderBy(a.orderBy, WORKER_TASK_ORDER, DEFAULT_WORKER_TASK_ORDER).flatMap((o) =>
      Object.entries(o).map(([column, direction]) => PrismaNS.raw(`t.${column} ${direction === 'desc' ? 'DESC NULLS LAST' : 'ASC NULLS FIRST'}`)),
    ),
  ];
  const from = sql`FROM worker_tasks t WHERE ${where.length ? join(where, ' AND ') : sql`TRUE`}`;

  return findPage(
    pageWindow(a, WORKER_TASK_PAGE_LIMITS),
    async ({ skip, take }) => {
      const rows = await ctx.db.$queryRaw<{ id: number }[]>`SELECT t.id ${from} ORDER BY ${join(order, ', ')} LIMIT ${take} OFFSET ${skip}`;
      if (!rows.length) return [];
      return inIdOrder(rows, await ctx.db.workerTask.findMany({ ...query, where: { id: { in: rows.map((r) => r.id) } } }));
    },
    async () => Number((await ctx.db.$queryRaw<{ n: number }[]>`SELECT count(*)::int AS n ${from}`)[0]?.n ?? 0),
    sqlPosition(ctx, sql`t.id`, from, order),
  );
}

// ── Writes ───────────────────────────────────────────────────────────────────────────────────────

/** Waits for other writers of the task (a submission, a cancellation): they are serialised per task. */
const lockTask = (tx: RequestContext, id: number) => tx.db.$queryRaw`SELECT id FROM worker_tasks WHERE id = ${id} FOR UPDATE`;

/**
 * POST /contributor/tasks (spec 002: "task_type (required)"; any other field optional). A relation
 * to a record of this API (RELATION_TYPES) must name a record the caller can see (else 400, as a
 * reference to another tenant's row reads as missing), and the task belongs to that record's client
 * account. A task with no such relation (none, or one of the client's own words, kept unchecked)
 * belongs to client_account_id, or to the caller's only client account (403 for another's, 400 when
 * the caller has several and names none: a task is always of one account). A secondary relation to a
 * record of this API must be a record of the task's account. Created PENDING.
 */
export async function createWorkerTask(ctx: RequestContext, args: Args<typeof rules.create>, query: Query = {}) {
  const parsed = parse(rules.create, args);
  return inTransaction(ctx, async (tx) => {
    let clientAccountId = 0;
    const asked = args.input?.clientAccountId;
    if (typeof asked === 'number') await requireAccount(tx, asked);
    const { input } = await check(tx, parsed, {
      check: async ({ input }, _found, issues) => {
        if (isRecordRelation(input.relationType) && input.relationId != null) {
          const account = await relationAccount(tx, input.relationType, input.relationId);
          if (account === null || !(await canAccessAccount(tx, account))) {
            issues.add(['relationId'], `${RELATION_NAMES[input.relationType]} ${input.relationId} does not exist`);
            return;
          }
          if (input.clientAccountId != null && input.clientAccountId !== account) {
            issues.add(['clientAccountId'], `must be the client account of the relation (${account}), or left out`);
            return;
          }
          clientAccountId = account;
        } else {
          const mine = input.clientAccountId != null ? [input.clientAccountId] : await listedAccounts(tx, null);
          if (mine?.length !== 1) {
            issues.add(['clientAccountId'], `is required for a task without a relation to a record (${RELATION_TYPES.join(', ')}) when you have access to several client accounts`);
            return;
          }
          clientAccountId = mine[0];
        }
        if (isRecordRelation(input.secondaryRelationType) && input.secondaryRelationId != null) {
          const other = await relationAccount(tx, input.secondaryRelationType, input.secondaryRelationId);
          if (other !== clientAccountId) {
            issues.add(['secondaryRelationId'], `${RELATION_NAMES[input.secondaryRelationType]} ${input.secondaryRelationId} does not exist in client account ${clientAccountId}`);
          }
        }
      },
    });
    const { status: _pending, clientAccountId: _asked, ...fields } = input;
    return tx.db.workerTask.create({ ...query, data: { ...fields, clientAccountId, status: 'PENDING', createdById: auditUserId(tx) } });
  });
}

/** PATCH /contributor/tasks/{id}: status CANCELLED, only from PENDING (spec 002); anything else is 400. */
export async function updateWorkerTask(ctx: RequestContext, args: Args<typeof rules.update>, query: Query = {}) {
  const parsed = parse(rules.update, args);
  return inTransaction(ctx, async (tx) => {
    await lockTask(tx, args.id);
    const task = await getWorkerTask(tx, args, { select: { id: true, clientAccountId: true, status: true } });
    const { input } = await check(tx, parsed, {
      check: ({ input }, _found, issues) => {
        const problem = patchProblem(task.status, input.status);
        if (problem) issues.add(['status'], problem);
      },
    });
    return tx.db.workerTask.update({ ...query, where: { id: task.id }, data: { status: input.status } });
  });
}

/**
 * POST /worker/tasks/{id}/results: one result. Its data is any JSON object (spec 002), stored as
 * sent, and the task stays PENDING ("Worker task | PENDING | result submission | | PENDING"). For
 * the service's own task types (WORKER_TASK_TYPES) the data is checked and normalised by the type's
 * schema and, in the same transaction, with the task locked (so concurrent submissions are judged
 * one after the other and only one can reach the consensus): when the type's required number of
 * submitters' latest results agree, the task becomes COMPLETED with completed_at and this result as
 * its consensus (the spec's "COMPLETED move: not shown"). Refused (400) unless the task is PENDING.
 */
export async function submitWorkerTaskResult(ctx: RequestContext, args: Args<typeof rules.submit>, query: ResultQuery = {}) {
  return inTransaction(ctx, async (tx) => {
    const { taskId, data } = parse(rules.submit, args);
    await lockTask(tx, taskId);
    const task = await requireOwned(
      tx,
      `Worker task ${taskId}`,
      await tx.db.workerTask.findUnique({ where: { id: taskId }, select: { id: true, clientAccountId: true, status: true, taskType: true, _count: { select: { results: true } } } }),
    );
    const problem = submissionProblem(task.status, task._count.results);
    if (problem) throw new ValidationError(`Worker task ${task.id}: ${problem}`);
    const type = ownTaskType(task.taskType);
    const stored = (type ? parse(type.data, data, ['data']) : data) as PrismaNS.InputJsonValue;
    const result = await tx.db.workerTaskResult.create({
      data: { taskId: task.id, clientAccountId: task.clientAccountId, data: stored, dataHash: dataHash(stored), submittedById: auditUserId(tx) },
      select: { id: true },
    });
    const results = type ? await tx.db.workerTaskResult.findMany({ where: { taskId: task.id }, select: { id: true, submittedById: true, dataHash: true } }) : [];
    if (type && agreedHash(results, type.requiredAgreement) !== null) {
      // the only answer that gained a vote is this one: it is the consensus
      await tx.db.workerTask.update({ where: { id: task.id }, data: { status: 'COMPLETED', completedAt: new Date(), consensusResultId: result.id }, select: { id: true } });
    } else {
      // results are published as their task's change (UNPUBLISHED_TABLES): a result that completes
      // nothing leaves the task's row as it was, so its worker_task.updated is recorded here
      await recordChange(tx.db, { clientAccountId: task.clientAccountId, resource: 'worker_task', resourceId: task.id, action: 'updated', actorId: auditUserId(tx) });
    }
    return tx.db.workerTaskResult.findUniqueOrThrow({ ...query, where: { id: result.id } });
  });
}

/** The service's own task types (GraphQL workerTaskTypes); any other task_type is the client's. */
export function workerTaskTypes(): { taskType: string; description: string; relationTypes: string[]; secondaryRelationTypes: string[]; secondaryRelationRequired: boolean; requiredAgreement: number }[] {
  return Object.entries(WORKER_TASK_TYPES).map(([taskType, t]) => ({
    taskType,
    description: t.description,
    relationTypes: [...t.relation],
    secondaryRelationTypes: [...(t.secondary?.types ?? [])],
    secondaryRelationRequired: t.secondary?.required ?? false,
    requiredAgreement: t.requiredAgreement,
  }));
}
