import { TASK_STATUS_MAX, TASK_STATUSES, TASK_TYPE_MAX, TASK_TYPES } from '../../src/modules/tasks/tasks.rules.ts';
import { defineOperations } from '../operation.ts';

// spec 002, "Tasks": GET/POST /tasks, GET/PUT/DELETE /tasks/{id}; relations subtasks, parent_task.
const TASK_SCALAR_FIELDS = /* GraphQL */ `
  fragment TaskScalarFields on Task {
    id
    title
    description
    status
    task_type: taskType
    completed_at: completedAt
    completion_summary: completionSummary
    client_account_id: clientAccountId
    assigned_to_id: assignedToId
    provider_client_account_id: providerClientAccountId
    parent_task_id: parentTaskId
    relation_type: relationType
    relation_id: relationId
    thread_id: threadId
    created_at: createdAt
    updated_at: updatedAt
    created_by_id: createdById
    updated_by_id: updatedById
  }`;

const TASK_FIELDS = /* GraphQL */ `
  fragment TaskFields on Task {
    ...TaskScalarFields
    subtasks @include(if: $with_subtasks) { ...TaskScalarFields }
    parent_task: parentTask @include(if: $with_parent_task) { ...TaskScalarFields }
  }
  ${TASK_SCALAR_FIELDS}`;

const WITH = { allowed: ['subtasks', 'parent_task'] } as const;

/** spec 002 "Task": "Allowed values of task status and task_type: not shown": free text, ours suggested (tasks.rules.ts). */
const VALUES =
  `status and task_type are free text (status 1–${TASK_STATUS_MAX}, task_type 1–${TASK_TYPE_MAX} characters, trimmed). Ours, matched without regard to case and stored in this spelling: ` +
  `status ${TASK_STATUSES.join(', ')} (default OPEN; COMPLETED sets completed_at, leaving it clears it; any may follow any), ` +
  `task_type ${TASK_TYPES.join(', ')} (default GENERAL). Any other value is yours, stored as sent.`;

export const taskOperations = defineOperations([
  {
    method: 'GET',
    path: '/tasks',
    summary:
      'List the tasks of a client account (client_account_id required), newest first unless order_by says otherwise: filters assigned_to_id (null: unassigned), ' +
      'parent_task_id (null: top-level tasks), status, task_type (lists: ours in any case, any other value exactly; in a query string a value cannot hold a comma, semicolon or space), relation_type, relation_id; page, per_page (100, at most 1000). ' + VALUES,
    document: /* GraphQL */ `
      query ListTasks($clientAccountId: Int!, $assignedToId: Int, $parentTaskId: Int, $status: [String!], $taskType: [String!],
                      $relationType: String, $relationId: Int, $orderBy: [String!], $page: Int, $perPage: Int) {
        tasks(clientAccountId: $clientAccountId, assignedToId: $assignedToId, parentTaskId: $parentTaskId, status: $status, taskType: $taskType,
              relationType: $relationType, relationId: $relationId, orderBy: $orderBy, page: $page, perPage: $perPage) {
          data: nodes { ...TaskFields }
          meta { page pages per_page: perPage records }
        }
      }
      ${TASK_FIELDS}`,
    with: WITH,
  },
  {
    method: 'POST',
    path: '/tasks',
    summary:
      'Create a task (title and client_account_id required) with its chat thread (thread_id; the creator and the assignee are its participants), in one transaction. ' +
      'assigned_to_id must be a user with access to the account, parent_task_id a task of the account, provider_client_account_id a provider account serving it (else 400). 201. ' + VALUES,
    document: /* GraphQL */ `
      mutation CreateTask($input: CreateTaskInput!) { createTask(input: $input) { ...TaskFields } }
      ${TASK_FIELDS}`,
    status: 201,
    with: WITH,
  },
  {
    method: 'GET',
    path: '/tasks/:id',
    summary: 'Get one task; with=subtasks,parent_task.',
    document: /* GraphQL */ `
      query GetTask($id: Int!) { task(id: $id) { ...TaskFields } }
      ${TASK_FIELDS}`,
    with: WITH,
  },
  {
    method: 'PUT',
    path: '/tasks/:id',
    summary:
      'Update a task: the create fields, all optional (only those sent change; client_account_id cannot change). A parent may not be the task or one of its subtasks. ' +
      'The thread follows the title (while its subject is the old title), the provider account and a new assignee (a participant).',
    document: /* GraphQL */ `
      mutation UpdateTask($id: Int!, $input: UpdateTaskInput!) { updateTask(id: $id, input: $input) { ...TaskFields } }
      ${TASK_FIELDS}`,
    with: WITH,
  },
  {
    method: 'DELETE',
    path: '/tasks/:id',
    summary: 'Delete a task and its chat thread (messages and participants with it), in one transaction; its subtasks become top-level tasks (parent_task_id null) and keep their own threads. 204.',
    document: /* GraphQL */ `mutation DeleteTask($id: Int!) { deleteTask(id: $id) }`,
    status: 204,
  },
]);
