import { builder, tenantScoped } from '../../builder.ts';
import { nodesQuery, pageType } from '../../shared/page-type.ts';
import { listCost, pageCost } from '../../shared/query-limits.ts';
import {
  MAX_RESULTS_PER_TASK,
  RELATION_TYPES,
  WORKER_TASK_ORDER,
  WORKER_TASK_PAGE_LIMITS,
  WORKER_TASK_STATUSES,
  WORKER_TASK_TYPES,
  workerTaskRules as rules,
  type WorkerTaskTypeCode,
} from './worker-tasks.rules.ts';
import { createWorkerTask, getWorkerTask, listWorkerTasks, submitWorkerTaskResult, updateWorkerTask, workerTaskTypes } from './worker-tasks.service.ts';

// spec 002 "Worker task and result", "Worker tasks"

export const WorkerTaskStatusEnum = builder.enumType('WorkerTaskStatus', {
  description: 'PENDING until the consensus completes it (COMPLETED) or it is cancelled (CANCELLED, only from PENDING)',
  values: WORKER_TASK_STATUSES,
});

export const WorkerTaskTypeEnum = builder.enumType('WorkerTaskType', {
  description: 'What a worker is asked to judge; workerTaskTypes lists the relations each takes and the agreement it needs',
  values: Object.fromEntries(Object.entries(WORKER_TASK_TYPES).map(([k, t]) => [k, { description: t.description }])) as Record<WorkerTaskTypeCode, { description: string }>,
});

const WorkerTaskResultStatusEnum = builder.enumType('WorkerTaskResultStatus', { description: 'Every result is SUBMITTED; the consensus is marked on its task', values: ['SUBMITTED'] as const });

const RELATIONS = `${RELATION_TYPES.join(', ')}`;

export const WorkerTaskResult = builder.prismaObject('WorkerTaskResult', {
  ...tenantScoped,
  description: "One worker's answer to a worker task.",
  fields: (t) => ({
    id: t.exposeInt('id'),
    taskId: t.exposeInt('taskId'),
    clientAccountId: t.exposeInt('clientAccountId', { description: "The task's client account" }),
    status: t.expose('status', { type: WorkerTaskResultStatusEnum }),
    data: t.expose('data', { type: 'JSON', description: "The answer, as the task type's schema normalised it (snake_case keys; absent optional fields are null)" }),
    submittedAt: t.expose('submittedAt', { type: 'DateTime' }),
    submittedById: t.exposeInt('submittedById', { nullable: true }),
  }),
});

export const WorkerTask = builder.prismaObject('WorkerTask', {
  ...tenantScoped,
  description:
    "A small judgement workers submit results for, about one record (relation) and sometimes a second (secondary relation); it belongs to the relation's client account. Agreeing results complete it.",
  fields: (t) => ({
    id: t.exposeInt('id'),
    clientAccountId: t.exposeInt('clientAccountId', { description: "The client account of the relation's record (set at creation)" }),
    status: t.expose('status', { type: WorkerTaskStatusEnum }),
    taskType: t.expose('taskType', { type: WorkerTaskTypeEnum }),
    relationType: t.exposeString('relationType', { nullable: true, description: `${RELATIONS}; null for a MANUAL_REVIEW about no particular record` }),
    relationId: t.exposeInt('relationId', { nullable: true }),
    secondaryRelationType: t.exposeString('secondaryRelationType', { nullable: true }),
    secondaryRelationId: t.exposeInt('secondaryRelationId', { nullable: true }),
    comment: t.exposeString('comment', { nullable: true }),
    createdAt: t.expose('createdAt', { type: 'DateTime' }),
    createdById: t.exposeInt('createdById', { nullable: true }),
    completedAt: t.expose('completedAt', { type: 'DateTime', nullable: true, description: 'When the consensus was reached' }),
    results: t.relation('results', {
      extensions: listCost(MAX_RESULTS_PER_TASK),
      description: `Every result, oldest first (at most ${MAX_RESULTS_PER_TASK})`,
      query: { orderBy: { id: 'asc' } },
    }),
    consensus: t.relation('consensus', { nullable: true, description: 'The result that completed the consensus (its data is the agreed answer); null until then' }),
  }),
});

const WorkerTaskPage = pageType('WorkerTaskPage', WorkerTask);

const WorkerTaskTypeInfo = builder.objectRef<ReturnType<typeof workerTaskTypes>[number]>('WorkerTaskTypeInfo').implement({
  description: 'A worker task type: what it is about and what completes it.',
  fields: (t) => ({
    taskType: t.expose('taskType', { type: WorkerTaskTypeEnum }),
    description: t.exposeString('description', { description: "What is asked, and the shape of a result's data" }),
    relationTypes: t.exposeStringList('relationTypes', { description: 'What relation_type may name' }),
    secondaryRelationTypes: t.exposeStringList('secondaryRelationTypes', { description: 'What secondary_relation_type may name (empty: none)' }),
    secondaryRelationRequired: t.exposeBoolean('secondaryRelationRequired'),
    requiredAgreement: t.exposeInt('requiredAgreement', { description: "How many users' latest results must carry the same data for the consensus" }),
  }),
});

const CreateWorkerTaskInput = builder.inputType('CreateWorkerTaskInput', {
  description: `A worker task about a record: task_type is required, and relation_type + relation_id for every type but MANUAL_REVIEW (${RELATIONS}); the task belongs to that record's client account (without a relation: to client_account_id). The secondary relation must be a record of the same account.`,
  fields: (t) => ({
    taskType: t.field({ type: WorkerTaskTypeEnum, required: true }),
    status: t.field({ type: WorkerTaskStatusEnum, description: 'PENDING (the default and the only value a task is created with)' }),
    relationType: t.string({ description: `${RELATIONS} (as the task type allows); required except for MANUAL_REVIEW, which may be about no particular record` }),
    relationId: t.int({ description: 'A record of one of your client accounts; required with relation_type' }),
    clientAccountId: t.int({
      description: "The client account of a task without a relation (default: the caller's only client account; required when the caller has several). With a relation it may be left out, or must be the relation's account",
    }),
    secondaryRelationType: t.string({ description: 'Required by VOUCHER_DUPLICATE_CHECK (voucher) and BANK_TRANSACTION_MATCH (voucher or document); optional for MANUAL_REVIEW' }),
    secondaryRelationId: t.int(),
    comment: t.string({ description: 'At most 2000 characters' }),
  }),
});

const UpdateWorkerTaskInput = builder.inputType('UpdateWorkerTaskInput', {
  description: 'Only status CANCELLED, only from PENDING; anything else is 400.',
  fields: (t) => ({ status: t.field({ type: WorkerTaskStatusEnum, required: true }) }),
});

builder.queryFields((t) => ({
  workerTasks: t.field({
    type: WorkerTaskPage,
    extensions: pageCost(WORKER_TASK_PAGE_LIMITS),
    description: "Worker tasks of the caller's client accounts (or one of them), oldest first unless orderBy; page-based, per_page 100 by default and at most.",
    args: {
      clientAccountId: t.arg.int({ description: 'One of your client accounts (403 otherwise); default: all of them' }),
      status: t.arg({ type: [WorkerTaskStatusEnum], defaultValue: ['PENDING'], description: 'Default PENDING; null lists every status' }),
      taskType: t.arg({ type: [WorkerTaskTypeEnum] }),
      hasSubmittedResults: t.arg.boolean({ description: 'true: tasks with at least one result; false: tasks without' }),
      hasResultsFromId: t.arg.int({ description: 'Tasks with a result from this user' }),
      hasNoResultsFromId: t.arg.int({ description: 'Tasks without a result from this user' }),
      lessThanResultsFromMe: t.arg.int({ description: 'Tasks where the caller has submitted fewer than this many results (1: none yet)' }),
      downplayResultsFromId: t.arg.int({ description: 'Tasks with a result from this user come last (the order applies within each part)' }),
      orderBy: t.arg.stringList({ description: `Fields ${Object.keys(WORKER_TASK_ORDER).join(', ')}; prefix - for descending; default created_at` }),
      page: t.arg.int(),
      perPage: t.arg.int(),
    },
    validate: rules.list,
    resolve: (_root, args, ctx, info) => listWorkerTasks(ctx, args, nodesQuery(ctx, info)),
  }),
  workerTask: t.prismaField({
    type: 'WorkerTask',
    args: { id: t.arg.int({ required: true }) },
    resolve: (query, _root, args, ctx) => getWorkerTask(ctx, args, query),
  }),
  workerTaskTypes: t.field({
    type: [WorkerTaskTypeInfo],
    extensions: listCost(Object.keys(WORKER_TASK_TYPES).length),
    description: 'The worker task types: their relations, the shape of their data and the agreement each needs.',
    resolve: () => workerTaskTypes(),
  }),
}));

builder.mutationFields((t) => ({
  createWorkerTask: t.prismaField({
    type: 'WorkerTask',
    description: "Creates a PENDING worker task about a record of one of the caller's client accounts.",
    args: { input: t.arg({ type: CreateWorkerTaskInput, required: true }) },
    validate: rules.create,
    resolve: (query, _root, args, ctx) => createWorkerTask(ctx, args, query),
  }),
  updateWorkerTask: t.prismaField({
    type: 'WorkerTask',
    description: 'Cancels a PENDING worker task (status CANCELLED); every other change is 400.',
    args: { id: t.arg.int({ required: true }), input: t.arg({ type: UpdateWorkerTaskInput, required: true }) },
    validate: rules.update,
    resolve: (query, _root, args, ctx) => updateWorkerTask(ctx, args, query),
  }),
  submitWorkerTaskResult: t.prismaField({
    type: 'WorkerTaskResult',
    description:
      "Submits a result (data checked against the task type's schema). When the type's required number of users' latest results agree, the task is COMPLETED with this result as its consensus. 400 unless the task is PENDING.",
    args: { taskId: t.arg.int({ required: true }), data: t.arg({ type: 'JSON', required: true, description: 'A JSON object; its shape depends on the task type (workerTaskTypes)' }) },
    validate: rules.submit,
    resolve: (query, _root, args, ctx) => submitWorkerTaskResult(ctx, args, query),
  }),
}));
