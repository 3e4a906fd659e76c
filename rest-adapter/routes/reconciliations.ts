import { defineOperations, withVariable } from '../operation.ts';
import { JOURNAL_LINE_FIELDS, USER_FIELDS } from './journal-entries.ts';

// spec 001, "Reconciliation" and "Reconciliations": GET/POST /reconciliations, PATCH and DELETE
// /reconciliations/{id}.

const v = (relation: string) => `$${withVariable(relation)}`;

/** The reconciliation with every field of spec 001 and its `with` relations (a line embeds the journal line's own fields). */
const RECONCILIATION_FIELDS = /* GraphQL */ `
  fragment ReconciliationFields on Reconciliation {
    id
    created_at: createdAt
    created_by_id: createdById
    client_account_id: clientAccountId
    sequence_number: sequenceNumber
    reconciliation_date: reconciliationDate
    is_draft: isDraft
    is_deleted: isDeleted
    deleted_at: deletedAt
    deleted_by_id: deletedById
    exchange_entry_id: exchangeEntryId
    created_by: createdBy @include(if: ${v('created_by')}) { ...JournalUserFields }
    entries @include(if: ${v('entries')}) {
      id
      journal_entry_id: journalEntryId
      journal_entry_line_id: journalEntryLineId
      debit
      debit_fc: debitFc
      credit
      credit_fc: creditFc
      journal_entry_line: journalEntryLine @include(if: ${v('entries.journal_entry_line')}) {
        ...JournalLineFields
        dimensions { type id name }
      }
    }
  }
  ${JOURNAL_LINE_FIELDS}
  ${USER_FIELDS}`;

const RELATIONS = ['entries', 'entries.journal_entry_line', 'created_by'] as const;
/** GET: relations are opt-in (spec: "Relations (opt-in via with on GET)"); POST and PATCH answers include entries */
const LIST_WITH = { allowed: RELATIONS } as const;
const WRITE_WITH = { allowed: RELATIONS, default: ['entries'] } as const;

export const reconciliationOperations = defineOperations([
  {
    method: 'GET',
    path: '/reconciliations',
    summary:
      'List the reconciliations of a client account by id. Pages count from 0 (page default 0, per_page 100). is_deleted false (default) lists live ones, true only deleted ones; is_draft omitted lists both. Relations (entries, entries.journal_entry_line, created_by) only with `with`.',
    document: /* GraphQL */ `
      query ListReconciliations($clientAccountId: Int!, $dateFrom: Date, $dateTo: Date, $journalEntryLineId: Int, $journalEntryId: Int,
                                $isDraft: Boolean, $isDeleted: Boolean, $page: Int, $perPage: Int) {
        reconciliations(clientAccountId: $clientAccountId, dateFrom: $dateFrom, dateTo: $dateTo, journalEntryLineId: $journalEntryLineId,
                        journalEntryId: $journalEntryId, isDraft: $isDraft, isDeleted: $isDeleted, page: $page, perPage: $perPage) {
          data: nodes { ...ReconciliationFields }
          meta { page pages per_page: perPage records }
        }
      }
      ${RECONCILIATION_FIELDS}`,
    with: LIST_WITH,
    tenantParameter: 'client_account_id',
  },
  {
    method: 'POST',
    path: '/reconciliations',
    summary:
      'Create a committed reconciliation: client_account_id, date and at least two entry_lines (journal_entry_line_id; amounts default to the line’s debit or credit). Local amounts must net to zero; entries in one foreign currency balanced in it get their exchange difference posted automatically (8060/8160).',
    document: /* GraphQL */ `
      mutation CreateReconciliation($input: CreateReconciliationInput!) { createReconciliation(input: $input) { ...ReconciliationFields } }
      ${RECONCILIATION_FIELDS}`,
    status: 201,
    with: WRITE_WITH,
    tenantParameter: 'client_account_id',
  },
  {
    method: 'PATCH',
    path: '/reconciliations/:id',
    summary:
      'Commit (approve) a draft: the body is exactly {"is_draft": false}. A committed one answers unchanged; a deleted one 409; a draft whose line was cancelled or reconciled elsewhere is deleted and answered 409.',
    document: /* GraphQL */ `
      mutation CommitReconciliation($id: Int!, $isDraft: Boolean!) { commitReconciliation(id: $id, isDraft: $isDraft) { ...ReconciliationFields } }
      ${RECONCILIATION_FIELDS}`,
    with: WRITE_WITH,
  },
  {
    method: 'DELETE',
    path: '/reconciliations/:id',
    summary: 'Undo a reconciliation: a draft is removed, a committed one soft-deleted with its amounts released (its automatic exchange entry cancelled). 204; again 204.',
    document: /* GraphQL */ `
      mutation DeleteReconciliation($id: Int!) { deleteReconciliation(id: $id) }`,
    status: 204,
  },
]);
