import type { Prisma as PrismaNS, Task } from '../../generated/prisma/client.ts';
import { auditUserId, inTransaction, type RequestContext } from '../../shared/context.ts';
import { findPage, pageWindow, toOrderBy } from '../../shared/pagination.ts';
import { relationPairIssue, relationReferences } from '../../shared/record-relations.ts';
import { eligibleAccountIds, providerServes, requireAccount, requireOwned } from '../../shared/tenancy.ts';
import { check, parse, validate, type Args, type Issues } from '../../shared/validation.ts';
import { addThreadParticipant, insertThread } from '../chat/chat.service.ts';
import { DEFAULT_TASK_ORDER, TASK_ORDER, TASK_PAGE_LIMITS, taskRules as rules } from './tasks.rules.ts';

type Query = { include?: PrismaNS.TaskInclude; select?: PrismaNS.TaskSelect };

/**
 * Tasks (spec 002 "Task", "Tasks"): work for a person in a client account, optionally about a record
 * and under a parent task. Every task has its chat thread (thread_id), created with it in the same
 * transaction and deleted with it: `createTask` is the one place tasks are made (the voucher
 * pipeline's review tasks too).
 */

/** GET /tasks: the tasks of a client account, newest first unless order_by says otherwise. */
export async function listTasks(ctx: RequestContext, args: Args<typeof rules.list>, query: Query = {}) {
  const a = parse(rules.list, args);
  await requireAccount(ctx, a.clientAccountId);
  const where: PrismaNS.TaskWhereInput = { clientAccountId: a.clientAccountId };
  if (a.assignedToId !== undefined) where.assignedToId = a.assignedToId;
  if (a.parentTaskId !== undefined) where.parentTaskId = a.parentTaskId;
  if (a.status?.length) where.status = { in: a.status };
  if (a.taskType?.length) where.taskType = { in: a.taskType };
  if (a.relationType != null) where.relationType = a.relationType;
  if (a.relationId != null) where.relationId = a.relationId;
  return findPage(
    pageWindow(a, TASK_PAGE_LIMITS),
    (w) => ctx.db.task.findMany({ ...query, where, orderBy: toOrderBy(a.orderBy, TASK_ORDER, DEFAULT_TASK_ORDER), ...w }),
    () => ctx.db.task.count({ where }),
  );
}

/** 404 when missing, 403 when it belongs to a client account the caller cannot access. */
export async function getTask(ctx: RequestContext, { id }: { id: number }, query: Query = {}) {
  return requireOwned(ctx, `Task ${id}`, await ctx.db.task.findUnique({ ...query, where: { id } }));
}

interface TaskLinks {
  clientAccountId: number;
  assignedToId?: number | null;
  providerClientAccountId?: number | null;
  parentTaskId?: number | null;
  /** the task being updated (its parent may be neither itself nor one of its subtasks) */
  taskId?: number;
}

/**
 * The checks of a task's links that need the database: the assignee has access to the client
 * account, the provider account serves it, the parent is another task of the account and not a
 * subtask of this one (no cycles).
 */
async function checkLinks(tx: RequestContext, t: TaskLinks, issues: Issues): Promise<void> {
  if (t.assignedToId != null && !(await eligibleAccountIds(tx.db, t.assignedToId)).has(t.clientAccountId)) {
    issues.add(['assignedToId'], `user ${t.assignedToId} does not exist or has no access to client account ${t.clientAccountId}`);
  }
  if (t.providerClientAccountId != null) {
    if (!(await providerServes(tx.db, t.providerClientAccountId, t.clientAccountId))) issues.add(['providerClientAccountId'], `client account ${t.providerClientAccountId} is not a provider account serving client account ${t.clientAccountId}`);
  }
  if (t.parentTaskId != null && t.taskId != null) {
    if (t.parentTaskId === t.taskId) issues.add(['parentTaskId'], 'a task cannot be its own parent');
    else if ((await subtreeIds(tx, t.taskId)).includes(t.parentTaskId)) issues.add(['parentTaskId'], `task ${t.parentTaskId} is a subtask of task ${t.taskId}`);
  }
}

/** The task and every task below it (subtasks of subtasks …). */
async function subtreeIds(tx: RequestContext, taskId: number): Promise<number[]> {
  const rows = await tx.db.$queryRaw<{ id: number }[]>`
    WITH RECURSIVE tree(id) AS (SELECT ${taskId}::int UNION SELECT t.id FROM tasks t JOIN tree ON t.parent_task_id = tree.id)
    SELECT id FROM tree`;
  return rows.map((r) => r.id);
}

/** COMPLETED (any case sent is stored so) sets completed_at, kept while it stays COMPLETED; any other status, ours or a client's, clears it. */
const completedAt = (from: Task['status'] | undefined, to: Task['status'] | undefined, stored: Date | null): Date | null | undefined => {
  if (to === undefined || to === from) return undefined;
  return to === 'COMPLETED' ? new Date() : from === 'COMPLETED' || stored ? null : undefined;
};

/**
 * POST /tasks, and every other place a task is made (the voucher pipeline): the task and its chat
 * thread (about the task: relation_type task, subject the title, the task's provider account) in one
 * transaction; the creator and the assignee are the thread's participants.
 */
export async function createTask(ctx: RequestContext, args: Args<typeof rules.create>, query: Query = {}) {
  const parsed = parse(rules.create, args);
  return inTransaction(ctx, async (tx) => {
    const clientAccountId = args.input.clientAccountId;
    await requireAccount(tx, clientAccountId);
    const { input } = await check(tx, parsed, {
      clientAccountId,
      references: ({ input }) => [
        ...relationReferences(input?.relationType, input?.relationId, ['input']),
        { path: ['input', 'parentTaskId'], model: 'task', id: input?.parentTaskId },
      ],
      check: ({ input }, _found, issues) => checkLinks(tx, input, issues),
    });
    const user = auditUserId(tx);
    const task = await tx.db.task.create({
      data: { ...input, completedAt: completedAt(undefined, input.status, null) ?? null, createdById: user, updatedById: user },
    });
    const thread = await insertThread(tx, {
      clientAccountId,
      providerClientAccountId: task.providerClientAccountId,
      subject: task.title,
      relationType: 'task',
      relationId: task.id,
    });
    if (task.assignedToId) await addThreadParticipant(tx, thread.id, task.assignedToId);
    return tx.db.task.update({ ...query, where: { id: task.id }, data: { threadId: thread.id } });
  });
}

/**
 * PUT /tasks/{id}: only the fields sent change; client_account_id may be sent back but not changed.
 * The thread follows: its subject while it still is the old title, its provider account, a new
 * assignee as participant.
 */
export async function updateTask(ctx: RequestContext, args: Args<typeof rules.update>, query: Query = {}) {
  const parsed = parse(rules.update, args);
  return inTransaction(ctx, async (tx) => {
    const task = await getTask(tx, args);
    const { input } = await check(tx, parsed, {
      clientAccountId: task.clientAccountId,
      immutable: { clientAccountId: task.clientAccountId },
      references: ({ input }) => [
        ...relationReferences(input?.relationType !== undefined ? input.relationType : task.relationType, input?.relationId !== undefined ? input.relationId : task.relationId, ['input']),
        { path: ['input', 'parentTaskId'], model: 'task', id: input?.parentTaskId },
      ],
      check: ({ input }, _found, issues) => {
        const relation = relationPairIssue(input.relationType !== undefined ? input.relationType : task.relationType, input.relationId !== undefined ? input.relationId : task.relationId);
        if (relation) issues.add([relation.path], relation.message);
        return checkLinks(tx, { ...input, clientAccountId: task.clientAccountId, taskId: task.id }, issues);
      },
    });
    const { clientAccountId: _immutable, ...fields } = input;
    const updated = await tx.db.task.update({
      where: { id: task.id },
      data: { ...fields, completedAt: completedAt(task.status, fields.status, task.completedAt), updatedById: auditUserId(tx) },
    });
    if (updated.threadId) {
      const thread = await tx.db.chatThread.findUniqueOrThrow({ where: { id: updated.threadId }, select: { subject: true } });
      const subject = fields.title !== undefined && thread.subject === task.title ? fields.title : undefined;
      if (subject !== undefined || fields.providerClientAccountId !== undefined) {
        await tx.db.chatThread.update({ where: { id: updated.threadId }, data: { subject, providerClientAccountId: fields.providerClientAccountId } });
      }
      if (updated.assignedToId && updated.assignedToId !== task.assignedToId) await addThreadParticipant(tx, updated.threadId, updated.assignedToId);
    }
    return tx.db.task.findUniqueOrThrow({ ...query, where: { id: task.id } });
  });
}

/**
 * DELETE /tasks/{id} (spec 002: "Deletes task and its chat channel"): the task and its thread (with
 * the thread's messages and participants), in one transaction. Its subtasks are not deleted: they
 * become top-level tasks (parent_task_id null, updated by the caller) and keep their own threads.
 */
export async function deleteTask(ctx: RequestContext, args: { id: number }): Promise<boolean> {
  return inTransaction(ctx, async (tx) => {
    const task = await getTask(tx, args, { select: { id: true, clientAccountId: true, threadId: true } });
    await tx.db.task.updateMany({ where: { parentTaskId: task.id }, data: { parentTaskId: null, updatedById: auditUserId(tx) } });
    await tx.db.task.delete({ where: { id: task.id } });
    if (task.threadId != null) await tx.db.chatThread.deleteMany({ where: { id: task.threadId } });
    return true;
  });
}
