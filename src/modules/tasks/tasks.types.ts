import { builder, tenantScoped } from '../../builder.ts';

/**
 * Tasks (spec 002 "Task"): the object only, as records point at it (a voucher's `tasks`). The tasks
 * module adds its queries, mutations and endpoints.
 */
export const TaskStatusEnum = builder.enumType('TaskStatus', {
  description: 'OPEN → IN_PROGRESS → COMPLETED, or CANCELLED',
  values: ['OPEN', 'IN_PROGRESS', 'COMPLETED', 'CANCELLED'] as const,
});

export const TaskTypeEnum = builder.enumType('TaskType', {
  description: 'What kind of work a task is',
  values: ['GENERAL', 'VOUCHER_REVIEW', 'DOCUMENT_REVIEW', 'BANK_RECONCILIATION', 'PAYROLL', 'VAT_REPORT', 'YEAR_END', 'TAX_RETURN'] as const,
});

export const Task = builder.prismaObject('Task', {
  ...tenantScoped,
  description: 'A piece of work for a person, optionally about a record (relationType + relationId, e.g. voucher 12).',
  fields: (t) => ({
    id: t.exposeInt('id'),
    clientAccountId: t.exposeInt('clientAccountId'),
    providerClientAccountId: t.exposeInt('providerClientAccountId', { nullable: true }),
    title: t.exposeString('title'),
    description: t.exposeString('description', { nullable: true }),
    status: t.expose('status', { type: TaskStatusEnum }),
    taskType: t.expose('taskType', { type: TaskTypeEnum }),
    completedAt: t.expose('completedAt', { type: 'DateTime', nullable: true }),
    completionSummary: t.exposeString('completionSummary', { nullable: true }),
    assignedToId: t.exposeInt('assignedToId', { nullable: true }),
    parentTaskId: t.exposeInt('parentTaskId', { nullable: true }),
    relationType: t.exposeString('relationType', { nullable: true, description: 'What the task is about: voucher, document, businesspartner …' }),
    relationId: t.exposeInt('relationId', { nullable: true }),
    threadId: t.exposeInt('threadId', { nullable: true }),
    createdAt: t.expose('createdAt', { type: 'DateTime' }),
    createdById: t.exposeInt('createdById', { nullable: true }),
    updatedAt: t.expose('updatedAt', { type: 'DateTime' }),
    updatedById: t.exposeInt('updatedById', { nullable: true }),
  }),
});
