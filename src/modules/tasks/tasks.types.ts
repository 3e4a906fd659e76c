import { recordById } from '../../shared/record-by-id.ts';
import { addAuditFields, loadUser, UserRef } from '../users/users.types.ts';
import { builder, tenantScoped } from '../../builder.ts';
import {cursorArgs, nodesQuery, pageType } from '../../shared/page-type.ts';
import { listCost, pageCost } from '../../shared/query-limits.ts';
import { createTask, deleteTask, getTask, listTasks, updateTask } from './tasks.service.ts';
import { TASK_PAGE_LIMITS, TASK_STATUS_DESCRIPTIONS, TASK_STATUS_MAX, TASK_TYPE_DESCRIPTIONS, TASK_TYPE_MAX, taskRules as rules } from './tasks.rules.ts';

/**
 * Tasks (spec 002 "Task", "Tasks"). status and task_type are free text ("Allowed values of task status
 * and task_type: not shown"); the descriptions list our values (tasks.rules.ts).
 */
const ours = (descriptions: Record<string, string>) =>
  Object.entries(descriptions)
    .map(([value, meaning]) => `${value} (${meaning})`)
    .join('; ');
const STATUS = `Free text of 1–${TASK_STATUS_MAX} characters. Ours, matched without regard to case and stored in this spelling: ${ours(TASK_STATUS_DESCRIPTIONS)}. Any other value is yours, stored as sent (trimmed), and counts as open; any status may follow any other`;
const TASK_TYPE = `Free text of 1–${TASK_TYPE_MAX} characters. Ours, matched without regard to case and stored in this spelling: ${ours(TASK_TYPE_DESCRIPTIONS)}. Any other value is yours, stored as sent (trimmed)`;

export const Task = builder.prismaObject('Task', {
  ...tenantScoped,
  description: 'A piece of work for a person, optionally about a record (relationType + relationId, e.g. voucher 12), with its chat thread.',
  fields: (t) => ({
    id: t.exposeInt('id'),
    clientAccount: t.relation('clientAccount'),
    clientAccountId: t.exposeInt('clientAccountId', { description: 'Immutable after creation' }),
    providerClientAccount: t.prismaField({ type: 'ClientAccount', nullable: true, resolve: (query, p, _a, ctx) => recordById(ctx, 'clientAccount', p.providerClientAccountId, query) }),
    providerClientAccountId: t.exposeInt('providerClientAccountId', { nullable: true, description: 'A provider account serving the client account' }),
    title: t.exposeString('title'),
    description: t.exposeString('description', { nullable: true }),
    status: t.exposeString('status', { description: STATUS }),
    taskType: t.exposeString('taskType', { description: TASK_TYPE }),
    completedAt: t.expose('completedAt', { type: 'DateTime', nullable: true, description: 'Set when the task becomes COMPLETED, cleared when it is reopened' }),
    completionSummary: t.exposeString('completionSummary', { nullable: true }),
    assignedTo: t.field({ type: UserRef, nullable: true, resolve: (r, _a, ctx) => loadUser(ctx, r.assignedToId) }),
    assignedToId: t.exposeInt('assignedToId', { nullable: true, description: 'A user with access to the client account' }),
    parentTaskId: t.exposeInt('parentTaskId', { nullable: true }),
    relationType: t.exposeString('relationType', { nullable: true, description: 'What the task is about: voucher, document, businesspartner …' }),
    relationId: t.exposeInt('relationId', { nullable: true }),
    threadId: t.exposeInt('threadId', { nullable: true, description: 'The task’s chat thread (made with the task, deleted with it)' }),
    subtasks: t.relation('subtasks', { extensions: listCost(100), description: 'The tasks whose parent this is, oldest first', query: { orderBy: [{ createdAt: 'asc' }, { id: 'asc' }] } }),
    parentTask: t.relation('parentTask', { nullable: true }),
    thread: t.relation('thread', { nullable: true }),
  }),
});
addAuditFields(Task);

const TaskPage = pageType('TaskPage', Task);

const taskFields = {
  description: 'At most 5000 characters; empty clears it',
  assignedToId: 'A user with access to the client account; null: nobody',
  providerClientAccountId: 'A provider account serving the client account (its thread follows)',
  parentTaskId: 'Another task of the client account (not one of this task’s subtasks)',
  relationType: 'What it is about, e.g. voucher, document, businesspartner (at most 50 characters, stored lower-cased); with relationId',
  relationId: 'Of a record of this API the relation type names: it must exist in the client account',
};

const CreateTaskInput = builder.inputType('CreateTaskInput', {
  fields: (t) => ({
    clientAccountId: t.int({ required: true }),
    title: t.string({ required: true, description: 'At most 250 characters' }),
    description: t.string({ description: taskFields.description }),
    status: t.string({ description: `Default OPEN. ${STATUS}` }),
    taskType: t.string({ description: `Default GENERAL. ${TASK_TYPE}` }),
    completionSummary: t.string({ description: taskFields.description }),
    assignedToId: t.int({ description: taskFields.assignedToId }),
    providerClientAccountId: t.int({ description: taskFields.providerClientAccountId }),
    parentTaskId: t.int({ description: taskFields.parentTaskId }),
    relationType: t.string({ description: taskFields.relationType }),
    relationId: t.int({ description: taskFields.relationId }),
  }),
});

const UpdateTaskInput = builder.inputType('UpdateTaskInput', {
  description: 'Fields to change; omitted fields keep their value. clientAccountId may be sent but not changed.',
  fields: (t) => ({
    clientAccountId: t.int({ description: 'Immutable: a different value is rejected' }),
    title: t.string({ description: 'At most 250 characters' }),
    description: t.string({ description: taskFields.description }),
    status: t.string({ description: `COMPLETED sets completedAt; another status clears it. ${STATUS}` }),
    taskType: t.string({ description: TASK_TYPE }),
    completionSummary: t.string({ description: taskFields.description }),
    assignedToId: t.int({ description: taskFields.assignedToId }),
    providerClientAccountId: t.int({ description: taskFields.providerClientAccountId }),
    parentTaskId: t.int({ description: `${taskFields.parentTaskId}; null makes it top-level` }),
    relationType: t.string({ description: taskFields.relationType }),
    relationId: t.int({ description: taskFields.relationId }),
  }),
});

builder.queryFields((t) => ({

  tasks: t.field({
    type: TaskPage,
    extensions: pageCost(TASK_PAGE_LIMITS),
    description: 'Tasks of a client account, newest first unless orderBy says otherwise (page-based; 100 per page by default, at most 1000).',
    args: {
      clientAccountId: t.arg.int({ required: true }),
      assignedToId: t.arg.int({ description: 'null: unassigned tasks' }),
      parentTaskId: t.arg.int({ description: 'null: top-level tasks only' }),
      status: t.arg.stringList({ description: 'Any of these statuses: ours in any case, any other exactly as stored' }),
      taskType: t.arg.stringList({ description: 'Any of these types: ours in any case, any other exactly as stored' }),
      relationType: t.arg.string(),
      relationId: t.arg.int(),
      orderBy: t.arg.stringList({ description: 'Fields id, created_at, updated_at, completed_at, title, status; - for descending. Default -created_at' }),
      ...cursorArgs(t),
      page: t.arg.int(),
      perPage: t.arg.int(),
    },
    resolve: (_root, args, ctx, info) => listTasks(ctx, args, nodesQuery(ctx, info)),
  }),
  task: t.prismaField({
    nullable: true,
    type: 'Task',
    args: { id: t.arg.int({ required: true }) },
    resolve: (query, _root, args, ctx) => getTask(ctx, args, query),
  }),
}));

builder.mutationFields((t) => ({
  createTask: t.prismaField({
    type: 'Task',
    description: 'Creates a task and its chat thread (you and the assignee its participants), in one transaction.',
    args: { input: t.arg({ type: CreateTaskInput, required: true }) },
    resolve: (query, _root, args, ctx) => createTask(ctx, args, query),
  }),
  updateTask: t.prismaField({
    type: 'Task',
    args: { id: t.arg.int({ required: true }), input: t.arg({ type: UpdateTaskInput, required: true }) },
    resolve: (query, _root, args, ctx) => updateTask(ctx, args, query),
  }),
  deleteTask: t.boolean({
    description: 'Deletes the task and its chat thread; its subtasks become top-level tasks and keep their threads (REST: 204).',
    args: { id: t.arg.int({ required: true }) },
    resolve: (_root, args, ctx) => deleteTask(ctx, args),
  }),
}));
