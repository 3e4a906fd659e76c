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
  "task_type is free text (1–100 characters, case-sensitive). The service's own types (data per type): VOUCHER_CLASSIFICATION {document_type}, VOUCHER_DATA_EXTRACTION {document_date, due_date, gross_amount, currency_code, organization_number, document_number, kid}, VOUCHER_DUPLICATE_CHECK {is_duplicate} (secondary relation: the other voucher), BANK_TRANSACTION_MATCH {is_match} (relation bank_transaction, secondary voucher or document) — each completed when 2 users agree —, MANUAL_REVIEW {approved, note} (any relation or none; one result completes it). Any other task_type is yours: any relation, any JSON object as data, and results leave the task PENDING.";

export const workerTaskOperations = defineOperations([
  {
    method: 'GET',
    path: '/contributor/tasks',
    aliases: ['/worker/tasks'],
    summary:
      "List the worker tasks of your client accounts (client_account_id narrows to one): status (default PENDING, several allowed, null for all), task_type (exact values, several allowed), has_submitted_results, has_results_from_id, has_no_results_from_id, less_than_results_from_me (tasks where you have submitted fewer results than this), downplay_results_from_id (tasks with a result from that user last), order_by (id, created_at, completed_at, task_type, status; - descending; default created_at), page, per_page (100, at most 100); with=results,consensus.",
    document: /* GraphQL */ `
      query ListWorkerTasks(
        $clientAccountId: Int
        $status: [WorkerTaskStatus!]
        $taskType: [String!]
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
    summary: `Create a worker task: task_type is required. relation_type + relation_id (together): a record of this API (voucher, document, bank_transaction, journal_entry, businesspartner; one you cannot see is 400) makes the task that record's client account's; any other relation_type (at most 50 characters) is kept unchecked, and the task belongs to client_account_id or your only client account. status only PENDING; a secondary relation to a record must be in the same account; comment at most 2000 characters. 201. ${TYPES}`,
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
      "Submit a result: body {data: any JSON object}; the task stays PENDING. Several users may submit, and a user again (the latest counts). For the service's own task types the data is checked against the type's (400 naming data.<field>), and when the type's required number of users' latest results carry the same data the task becomes COMPLETED (completed_at set, this result its consensus) in the same transaction. 400 for a COMPLETED or CANCELLED task. Response: the result record.",
    document: /* GraphQL */ `
      mutation SubmitWorkerTaskResult($id: Int!, $data: JSON!) { submitWorkerTaskResult(taskId: $id, data: $data) { ...WorkerTaskResultFields } }
      ${RESULT_FIELDS}`,
  },
]);
