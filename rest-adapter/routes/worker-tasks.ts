import { defineOperations } from '../operation.ts';

// spec 002 "Worker tasks": every path exists under /contributor/tasks and /worker/tasks (the spec
// shows create, get and update under /contributor/tasks, the list and results under both): one
// entry per operation, the other prefix an alias.
const RESULT_FIELDS = /* GraphQL */ `
  fragment WorkerTaskResultFields on WorkerTaskResult {
    id
    submitted_at: submittedAt
    submitted_by_id: submittedById
    task_id: taskId
    status
    data
  }`;

const TASK_FIELDS = /* GraphQL */ `
  fragment WorkerTaskFields on WorkerTask {
    id
    created_at: createdAt
    created_by_id: createdById
    completed_at: completedAt
    status
    task_type: taskType
    client_account_id: clientAccountId
    relation_type: relationType
    relation_id: relationId
    secondary_relation_type: secondaryRelationType
    secondary_relation_id: secondaryRelationId
    comment
    results @include(if: $with_results) { ...WorkerTaskResultFields }
    consensus @include(if: $with_consensus) { ...WorkerTaskResultFields }
  }
  ${RESULT_FIELDS}`;

const WITH = { allowed: ['results', 'consensus'] } as const;

const TYPES =
  'Task types (data per type): VOUCHER_CLASSIFICATION {document_type}, VOUCHER_DATA_EXTRACTION {document_date, due_date, gross_amount, currency_code, organization_number, document_number, kid}, VOUCHER_DUPLICATE_CHECK {is_duplicate} (secondary relation: the other voucher), BANK_TRANSACTION_MATCH {is_match} (relation bank_transaction, secondary voucher or document) — each completed when 2 users agree —, MANUAL_REVIEW {approved, note} (any relation; one result completes it).';

export const workerTaskOperations = defineOperations([
  {
    method: 'GET',
    path: '/contributor/tasks',
    aliases: ['/worker/tasks'],
    summary:
      "List the worker tasks of your client accounts (client_account_id narrows to one): status (default PENDING, several allowed, null for all), task_type, has_submitted_results, has_results_from_id, has_no_results_from_id, less_than_results_from_me (tasks where you have submitted fewer results than this), downplay_results_from_id (tasks with a result from that user last), order_by (id, created_at, completed_at, task_type, status; - descending; default created_at), page, per_page (100, at most 100); with=results,consensus.",
    document: /* GraphQL */ `
      query ListWorkerTasks(
        $clientAccountId: Int
        $status: [WorkerTaskStatus!]
        $taskType: [WorkerTaskType!]
        $hasSubmittedResults: Boolean
        $hasResultsFromId: Int
        $hasNoResultsFromId: Int
        $lessThanResultsFromMe: Int
        $downplayResultsFromId: Int
        $orderBy: [String!]
        $page: Int
        $perPage: Int
      ) {
        workerTasks(
          clientAccountId: $clientAccountId
          status: $status
          taskType: $taskType
          hasSubmittedResults: $hasSubmittedResults
          hasResultsFromId: $hasResultsFromId
          hasNoResultsFromId: $hasNoResultsFromId
          lessThanResultsFromMe: $lessThanResultsFromMe
          downplayResultsFromId: $downplayResultsFromId
          orderBy: $orderBy
          page: $page
          perPage: $perPage
        ) {
          data: nodes { ...WorkerTaskFields }
          meta { page pages per_page: perPage records }
        }
      }
      ${TASK_FIELDS}`,
    with: WITH,
  },
  {
    method: 'GET',
    path: '/contributor/tasks/:id',
    aliases: ['/worker/tasks/:id'],
    summary: 'Get one worker task; with=results,consensus.',
    document: /* GraphQL */ `
      query GetWorkerTask($id: Int!) { workerTask(id: $id) { ...WorkerTaskFields } }
      ${TASK_FIELDS}`,
    with: WITH,
  },
  {
    method: 'POST',
    path: '/contributor/tasks',
    aliases: ['/worker/tasks'],
    summary: `Create a worker task: task_type, relation_type (voucher, document, bank_transaction, journal_entry, businesspartner) and relation_id are required; the task belongs to that record's client account (a record you cannot see is 400); status only PENDING; secondary relation in the same account; comment at most 2000 characters. 201. ${TYPES}`,
    document: /* GraphQL */ `
      mutation CreateWorkerTask($input: CreateWorkerTaskInput!) { createWorkerTask(input: $input) { ...WorkerTaskFields } }
      ${TASK_FIELDS}`,
    status: 201,
    with: WITH,
  },
  {
    method: 'PATCH',
    path: '/contributor/tasks/:id',
    aliases: ['/worker/tasks/:id'],
    summary: 'Cancel a worker task: body {status: CANCELLED}, only from PENDING; any other status or a task that is not PENDING is 400.',
    document: /* GraphQL */ `
      mutation UpdateWorkerTask($id: Int!, $input: UpdateWorkerTaskInput!) { updateWorkerTask(id: $id, input: $input) { ...WorkerTaskFields } }
      ${TASK_FIELDS}`,
    with: WITH,
  },
  {
    method: 'POST',
    path: '/contributor/tasks/:id/results',
    aliases: ['/worker/tasks/:id/results'],
    summary:
      "Submit a result: body {data: object}, checked against the task type's data (400 naming data.<field>); several users may submit, and a user again (the latest counts). When the type's required number of users' latest results carry the same data, the task becomes COMPLETED (completed_at set, this result its consensus) in the same transaction. 400 for a COMPLETED or CANCELLED task. Response: the result record.",
    document: /* GraphQL */ `
      mutation SubmitWorkerTaskResult($id: Int!, $data: JSON!) { submitWorkerTaskResult(taskId: $id, data: $data) { ...WorkerTaskResultFields } }
      ${RESULT_FIELDS}`,
  },
]);
