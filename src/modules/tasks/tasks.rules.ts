import { z } from 'zod';
import { orderByNames, pageArgs, type PageLimits } from '../../shared/pagination.ts';
import { relationPairIssue, relationType } from '../../shared/record-relations.ts';
import { evenWithIssues, id, immutable, nonEmptyText, optionalText } from '../../shared/validation.ts';

/**
 * Task status and type are free text (spec 002 "Task": "Allowed values of task status and task_type:
 * not shown"): a client may send any trimmed text of 1–50 (status) or 1–100 (task_type) characters.
 * These lists are ours, the values the API documents and acts on: matched without regard to case and
 * stored in this spelling (`completed` is COMPLETED); any other value is the client's, stored as sent.
 */
export const TASK_STATUSES = ['OPEN', 'IN_PROGRESS', 'COMPLETED', 'CANCELLED'] as const;
export const TASK_TYPES = ['GENERAL', 'VOUCHER_REVIEW', 'DOCUMENT_REVIEW', 'BANK_RECONCILIATION', 'PAYROLL', 'VAT_REPORT', 'YEAR_END', 'TAX_RETURN'] as const;
export type TaskStatus = (typeof TASK_STATUSES)[number];
export const TASK_STATUS_MAX = 50;
export const TASK_TYPE_MAX = 100;

/** A task is done or dropped in these; every other status, ours or a client's, counts as open (the weekly summary, the voucher pipeline's review task). */
export const CLOSED_TASK_STATUSES: readonly TaskStatus[] = ['COMPLETED', 'CANCELLED'];

/** What each of our values means (the GraphQL fields' descriptions, the README). */
export const TASK_STATUS_DESCRIPTIONS: Record<TaskStatus, string> = {
  OPEN: 'not started; the default',
  IN_PROGRESS: 'someone is working on it',
  COMPLETED: 'done; completed_at is set when a task becomes COMPLETED and cleared when it gets another status',
  CANCELLED: 'will not be done',
};
export const TASK_TYPE_DESCRIPTIONS: Record<(typeof TASK_TYPES)[number], string> = {
  GENERAL: 'any other work; the default',
  VOUCHER_REVIEW: 'a voucher needs a person; the voucher pipeline opens these when it cannot finish one',
  DOCUMENT_REVIEW: 'a commercial document needs checking or approval',
  BANK_RECONCILIATION: 'bank transactions to reconcile',
  PAYROLL: 'payroll run or reporting',
  VAT_REPORT: 'the VAT return of a period',
  YEAR_END: 'year-end closing and annual accounts',
  TAX_RETURN: 'the tax return',
};

/** Free text of 1–max characters (trimmed); one of `ours` in any case is stored in its spelling. */
const freeText = (max: number, ours: readonly string[]) =>
  nonEmptyText(max).transform((v) => ours.find((o) => o.toLowerCase() === v.toLowerCase()) ?? v);
export const taskStatus = freeText(TASK_STATUS_MAX, TASK_STATUSES);
export const taskType = freeText(TASK_TYPE_MAX, TASK_TYPES);

/** The most values one status or task_type filter names (each goes into the query). */
const MAX_FILTER_VALUES = 100;

/** GET /tasks: per_page 100 by default, at most 1000. */
export const TASK_PAGE_LIMITS: PageLimits = { defaultPerPage: 100, maxPerPage: 1000 };

/** order_by of GET /tasks (designed here): the public names and the model fields. */
export const TASK_ORDER = {
  id: 'id',
  created_at: 'createdAt',
  updated_at: 'updatedAt',
  completed_at: 'completedAt',
  title: 'title',
  status: 'status',
} as const;
export const DEFAULT_TASK_ORDER = ['-created_at', '-id'];

/** null or nothing keeps the stored value (or takes the default). */
const keep = <T extends z.ZodType>(schema: T) => schema.nullish().transform((v) => v ?? undefined);

const taskFields = {
  title: nonEmptyText(250),
  description: optionalText(5000),
  status: keep(taskStatus),
  taskType: keep(taskType),
  completionSummary: optionalText(5000),
  /** a user with access to the client account; null: nobody */
  assignedToId: id.nullish(),
  /** a provider account serving the client account */
  providerClientAccountId: id.nullish(),
  /** a task of the same client account (not the task itself or one of its subtasks) */
  parentTaskId: id.nullish(),
  relationType,
  relationId: id.nullish(),
};

/** relation_type and relation_id go together (either may be sent alone on an update that keeps the other). */
const pairedRelation = (t: { relationType?: unknown; relationId?: unknown }, ctx: z.RefinementCtx) => {
  const issue = relationPairIssue(t.relationType, t.relationId);
  if (issue) ctx.issues.push({ code: 'custom', input: undefined, path: [issue.path], message: issue.message });
};

/** The inputs of every task operation (the GraphQL fields' arguments). */
export const taskRules = {
  list: z.object({
    clientAccountId: id,
    /** null: unassigned tasks */
    assignedToId: id.nullish(),
    /** null: top-level tasks only */
    parentTaskId: id.nullish(),
    /** values as stored: ours in any case, a client's exactly (trimmed) */
    status: z.array(taskStatus).max(MAX_FILTER_VALUES, `names at most ${MAX_FILTER_VALUES} values`).nullish(),
    taskType: z.array(taskType).max(MAX_FILTER_VALUES, `names at most ${MAX_FILTER_VALUES} values`).nullish(),
    relationType,
    relationId: id.nullish(),
    orderBy: orderByNames(TASK_ORDER),
    ...pageArgs,
  }),
  create: z.object({ input: z.object({ clientAccountId: id, ...taskFields }).superRefine(pairedRelation, evenWithIssues) }),
  update: z.object({
    id,
    /** omitted fields keep their value; client_account_id may be sent back but not changed */
    input: z.object(taskFields).partial().extend({ clientAccountId: immutable }),
  }),
};
