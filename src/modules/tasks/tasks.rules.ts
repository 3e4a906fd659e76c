import { z } from 'zod';
import { orderByNames, pageArgs, type PageLimits } from '../../shared/pagination.ts';
import { relationPairIssue, relationType } from '../../shared/record-relations.ts';
import { evenWithIssues, id, immutable, nonEmptyText, optionalText } from '../../shared/validation.ts';

/**
 * Task status and type (spec 002 "Task": "Allowed values of task status and task_type: not shown"):
 * defined here, one list each, which the Prisma enums, the GraphQL enums and OpenAPI repeat.
 */
export const TASK_STATUSES = ['OPEN', 'IN_PROGRESS', 'COMPLETED', 'CANCELLED'] as const;
export const TASK_TYPES = ['GENERAL', 'VOUCHER_REVIEW', 'DOCUMENT_REVIEW', 'BANK_RECONCILIATION', 'PAYROLL', 'VAT_REPORT', 'YEAR_END', 'TAX_RETURN'] as const;
export type TaskStatus = (typeof TASK_STATUSES)[number];

/** What each value means (the enums' descriptions). */
export const TASK_STATUS_DESCRIPTIONS: Record<TaskStatus, string> = {
  OPEN: 'Not started (the default)',
  IN_PROGRESS: 'Someone is working on it',
  COMPLETED: 'Done: completed_at is set when a task becomes COMPLETED and cleared when it is reopened',
  CANCELLED: 'Will not be done',
};
export const TASK_TYPE_DESCRIPTIONS: Record<(typeof TASK_TYPES)[number], string> = {
  GENERAL: 'Any other work (the default)',
  VOUCHER_REVIEW: 'A voucher needs a person: the voucher pipeline opens these when it cannot finish a voucher',
  DOCUMENT_REVIEW: 'A commercial document needs checking or approval',
  BANK_RECONCILIATION: 'Bank transactions to reconcile',
  PAYROLL: 'Payroll run or reporting',
  VAT_REPORT: 'The VAT return of a period',
  YEAR_END: 'Year-end closing and annual accounts',
  TAX_RETURN: 'The tax return',
};

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
  status: keep(z.enum(TASK_STATUSES)),
  taskType: keep(z.enum(TASK_TYPES)),
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
    status: z.array(z.enum(TASK_STATUSES)).max(TASK_STATUSES.length * 2).nullish(),
    taskType: z.array(z.enum(TASK_TYPES)).max(TASK_TYPES.length * 2).nullish(),
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
