import { recordById } from '../../shared/record-by-id.ts';
import { loadUser, UserRef } from '../users/users.types.ts';
import { builder, tenantScoped } from '../../builder.ts';
import {cursorArgs, nodesQuery, pageType } from '../../shared/page-type.ts';
import { listCost, pageCost } from '../../shared/query-limits.ts';
import { MAX_RESULTS_PER_TASK, RELATION_TYPES, WORKER_TASK_ORDER, WORKER_TASK_PAGE_LIMITS, WORKER_TASK_STATUSES, WORKER_TASK_TYPE_CODES, WORKER_TASK_TYPES } from './worker-tasks.rules.ts';
import { createWorkerTask, getWorkerTask, listWorkerTasks, submitWorkerTaskResult, updateWorkerTask, workerTaskTypes } from './worker-tasks.service.ts';

// spec 002 "Worker task and result", "Worker tasks"

export const WorkerTaskStatusEnum = builder.enumType('WorkerTaskStatus', {
  description: 'PENDING until the consensus completes it (COMPLETED) or it is cancelled (CANCELLED, only from PENDING)',
  values: WORKER_TASK_STATUSES,
});

/** spec 002: task_type's values are not listed, so it is free text; the service's own types are named in the descriptions. */
const TASK_TYPE = `Free text of 1–100 characters (case-sensitive). The service's own types — ${WORKER_TASK_TYPE_CODES.join(', ')} (workerTaskTypes) — check their relations and data and complete on consensus; any other type is yours: any relation, any JSON object as data, and results leave it PENDING`;

const WorkerTaskResultStatusEnum = builder.enumType('WorkerTaskResultStatus', { description: 'Every result is SUBMITTED; the consensus is marked on its task', values: ['SUBMITTED'] as const });

const RELATIONS = `${RELATION_TYPES.join(', ')}`;

export const WorkerTaskResult = builder.prismaObject('WorkerTaskResult', {
  ...tenantScoped,
  description: "One worker's answer to a worker task.",
  fields: (t) => ({
    id: t.exposeInt('id'),
    task: t.relation('task'),
    taskId: t.exposeInt('taskId'),
    clientAccount: t.prismaField({ type: 'ClientAccount', resolve: (query, p, _a, ctx) => recordById(ctx, 'clientAccount', p.clientAccountId, query) as never }),
    clientAccountId: t.exposeInt('clientAccountId', { description: "The task's client account" }),
    status: t.expose('status', { type: WorkerTaskResultStatusEnum }),
    data: t.expose('data', { type: 'JSON', description: "The answer: a JSON object as sent, or as the schema of one of the service's own task types normalised it (snake_case keys; absent optional fields are null)" }),
    submittedAt: t.expose('submittedAt', { type: 'DateTime' }),
    submittedBy: t.field({ type: UserRef, nullable: true, resolve: (r, _a, ctx) => loadUser(ctx, r.submittedById) }),
    submittedById: t.exposeInt('submittedById', { nullable: true }),
  }),
});

export const WorkerTask = builder.prismaObject('WorkerTask', {
  ...tenantScoped,
  description:
    "A small judgement workers submit results for, usually about one record (relation) and sometimes a second (secondary relation); it belongs to one client account (the relation's record's, or the one it was created for). Agreeing results complete a task of the service's own types; a task of any other type stays PENDING until cancelled.",
  fields: (t) => ({
    id: t.exposeInt('id'),
    clientAccount: t.relation('clientAccount'),
    clientAccountId: t.exposeInt('clientAccountId', { description: "The client account of the relation's record, or the one the task was created for (set at creation)" }),
    status: t.expose('status', { type: WorkerTaskStatusEnum }),
    taskType: t.exposeString('taskType', { description: TASK_TYPE }),
    relationType: t.exposeString('relationType', { nullable: true, description: `${RELATIONS} (records of this API, which decide the client account) or any other word of yours; null for a task about no particular record` }),
    relationId: t.exposeInt('relationId', { nullable: true }),
    secondaryRelationType: t.exposeString('secondaryRelationType', { nullable: true }),
    secondaryRelationId: t.exposeInt('secondaryRelationId', { nullable: true }),
    comment: t.exposeString('comment', { nullable: true }),
    createdAt: t.expose('createdAt', { type: 'DateTime' }),
    createdBy: t.field({ type: UserRef, nullable: true, resolve: (r, _a, ctx) => loadUser(ctx, r.createdById) }),
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
  description: "One of the service's own worker task types: what it is about and what completes it.",
  fields: (t) => ({
    taskType: t.exposeString('taskType'),
    description: t.exposeString('description', { description: "What is asked, and the shape of a result's data" }),
    relationTypes: t.exposeStringList('relationTypes', { description: 'What relation_type may name' }),
    secondaryRelationTypes: t.exposeStringList('secondaryRelationTypes', { description: 'What secondary_relation_type may name (empty: none)' }),
    secondaryRelationRequired: t.exposeBoolean('secondaryRelationRequired'),
    requiredAgreement: t.exposeInt('requiredAgreement', { description: "How many users' latest results must carry the same data for the consensus" }),
  }),
});

const CreateWorkerTaskInput = builder.inputType('CreateWorkerTaskInput', {
  description: `A worker task: only task_type is required. A relation to a record of this API (${RELATIONS}) makes the task that record's client account's; without one it belongs to client_account_id (default: your only client account). A secondary relation to a record must be one of the same account. The service's own types take the relations workerTaskTypes lists.`,
  fields: (t) => ({
    taskType: t.string({ required: true, description: TASK_TYPE }),
    status: t.field({ type: WorkerTaskStatusEnum, description: 'PENDING (the default and the only value a task is created with)' }),
    relationType: t.string({ description: `${RELATIONS} (a record of yours, checked) or any other word (at most 50 characters, lower-cased, unchecked); the service's own types except MANUAL_REVIEW require one of theirs` }),
    relationId: t.int({ description: 'Required with relation_type; for a relation type of this API a record of one of your client accounts' }),
    clientAccountId: t.int({
      description: "The client account of a task without a relation to a record of this API (default: the caller's only client account; required when the caller has several). With one it may be left out, or must be the record's account",
    }),
    secondaryRelationType: t.string({ description: 'As relationType; required by VOUCHER_DUPLICATE_CHECK (voucher) and BANK_TRANSACTION_MATCH (voucher or document)' }),
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
      taskType: t.arg.stringList({ description: 'Task types as stored (exact)' }),
      hasSubmittedResults: t.arg.boolean({ description: 'true: tasks with at least one result; false: tasks without' }),
      hasResultsFromId: t.arg.int({ description: 'Tasks with a result from this user' }),
      hasNoResultsFromId: t.arg.int({ description: 'Tasks without a result from this user' }),
      lessThanResultsFromMe: t.arg.int({ description: 'Tasks where the caller has submitted fewer than this many results (1: none yet)' }),
      downplayResultsFromId: t.arg.int({ description: 'Tasks with a result from this user come last (the order applies within each part)' }),
      orderBy: t.arg.stringList({ description: `Fields ${Object.keys(WORKER_TASK_ORDER).join(', ')}; prefix - for descending; default created_at` }),
      ...cursorArgs(t),
      page: t.arg.int(),
      perPage: t.arg.int(),
    },
    resolve: (_root, args, ctx, info) => listWorkerTasks(ctx, args, nodesQuery(ctx, info)),
  }),
  workerTask: t.prismaField({
    nullable: true,
    type: 'WorkerTask',
    args: { id: t.arg.int({ required: true }) },
    resolve: (query, _root, args, ctx) => getWorkerTask(ctx, args, query),
  }),

  workerTaskTypes: t.field({
    type: [WorkerTaskTypeInfo],
    extensions: listCost(Object.keys(WORKER_TASK_TYPES).length),
    description: "The service's own worker task types: their relations, the shape of their data and the agreement each needs (any other task_type is free).",
    resolve: () => workerTaskTypes(),
  }),
}));

builder.mutationFields((t) => ({
  createWorkerTask: t.prismaField({
    type: 'WorkerTask',
    description: "Creates a PENDING worker task in one of the caller's client accounts.",
    args: { input: t.arg({ type: CreateWorkerTaskInput, required: true }) },
    resolve: (query, _root, args, ctx) => createWorkerTask(ctx, args, query),
  }),
  updateWorkerTask: t.prismaField({
    type: 'WorkerTask',
    description: 'Cancels a PENDING worker task (status CANCELLED); every other change is 400.',
    args: { id: t.arg.int({ required: true }), input: t.arg({ type: UpdateWorkerTaskInput, required: true }) },
    resolve: (query, _root, args, ctx) => updateWorkerTask(ctx, args, query),
  }),
  submitWorkerTaskResult: t.prismaField({
    type: 'WorkerTaskResult',
    description:
      "Submits a result; the task stays PENDING. For the service's own task types the data is checked against the type's schema, and when the type's required number of users' latest results agree the task is COMPLETED with this result as its consensus. 400 unless the task is PENDING.",
    args: { taskId: t.arg.int({ required: true }), data: t.arg({ type: 'JSON', required: true, description: "Any JSON object; the service's own task types give its shape (workerTaskTypes)" }) },
    resolve: (query, _root, args, ctx) => submitWorkerTaskResult(ctx, args, query),
  }),
}));
