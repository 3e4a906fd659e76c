import { defineOperations, withVariable } from '../operation.ts';

// spec 001, "Journal entries": GET /journal-entries, GET /journal-entries/{id}, POST /journal-entries/
// (trailing slash), PUT, PATCH (cancel) and DELETE /journal-entries/{id}.

const v = (relation: string) => `$${withVariable(relation)}`;

/** A user as the ledger's `with` relations embed one (created_by, posted_by …): also used by reconciliations. */
export const USER_FIELDS = /* GraphQL */ `
  fragment JournalUserFields on User { id email first_name: firstName last_name: lastName full_name: fullName }`;

/** The entry's own fields (spec 001 "Journal entry", and our is_opening_balance), without relations: also embedded by projects. */
export const JOURNAL_ENTRY_SCALAR_FIELDS = /* GraphQL */ `
  fragment JournalEntryScalarFields on JournalEntry {
    id
    created_at: createdAt
    created_by_id: createdById
    updated_at: updatedAt
    updated_by_id: updatedById
    posted_at: postedAt
    posted_by_id: postedById
    client_account_id: clientAccountId
    sequence_number: sequenceNumber
    description
    cancelled
    cancelled_by_id: cancelledById
    cancellation_entry_id: cancellationEntryId
    cancellation_reason: cancellationReason
    is_draft: isDraft
    is_opening_balance: isOpeningBalance
    voucher_id: voucherId
    relation_type: relationType
    relation_id: relationId
    relation_number: relationNumber
  }`;

/** A journal line's own fields (spec 001 "Journal entry", line fields), without relations: also embedded by reconciliations. */
export const JOURNAL_LINE_FIELDS = /* GraphQL */ `
  fragment JournalLineFields on JournalEntryLine {
    id
    journal_entry_id: journalEntryId
    line_id: lineId
    posting_date: postingDate
    description
    account_code: accountCode
    account_id: accountId
    debit
    debit_fc: debitFc
    credit
    credit_fc: creditFc
    currency_code: currencyCode
    currency_id: currencyId
    exchange_rate: exchangeRate
    tax_code: taxCode
    tax_code_id: taxCodeId
    tax_base_amount: taxBaseAmount
    tax_base_amount_fc: taxBaseAmountFc
    tax_amount: taxAmount
    tax_amount_fc: taxAmountFc
    tax_line: taxLine
    tax_for_line: taxForLine
    quantity
    reconciled_amount: reconciledAmount
    reconciled_amount_fc: reconciledAmountFc
    external_reconciled_amount: externalReconciledAmount
  }`;

/** The entry with every field of spec 001 and its `with` relations (also the answer of POST /yearly-accounts/annual-allocations). */
export const ENTRY_FIELDS = /* GraphQL */ `
  fragment JournalEntryFields on JournalEntry {
    ...JournalEntryScalarFields
    created_by: createdBy @include(if: ${v('created_by')}) { ...JournalUserFields }
    updated_by: updatedBy @include(if: ${v('updated_by')}) { ...JournalUserFields }
    posted_by: postedBy @include(if: ${v('posted_by')}) { ...JournalUserFields }
    lines @include(if: ${v('lines')}) {
      ...JournalLineFields
      dimensions @include(if: ${v('lines.dimensions')}) { type id name }
      account @include(if: ${v('lines.account')}) {
        id
        account_code: code
        description: name
        account_type: accountType
        is_active: isActive
        mandatory_dimensions: mandatoryDimensions @include(if: ${v('lines.account.mandatory_dimensions')})
      }
    }
  }
  ${JOURNAL_ENTRY_SCALAR_FIELDS}
  ${JOURNAL_LINE_FIELDS}
  ${USER_FIELDS}`;

const RELATIONS = ['created_by', 'updated_by', 'posted_by', 'lines', 'lines.dimensions', 'lines.account', 'lines.account.mandatory_dimensions'] as const;
const LIST_WITH = { allowed: RELATIONS, default: ['lines', 'lines.dimensions'] } as const;
export const ONE_WITH = { allowed: RELATIONS, default: ['lines', 'lines.dimensions', 'lines.account', 'lines.account.mandatory_dimensions'] } as const;

export const journalEntryOperations = defineOperations([
  {
    method: 'GET',
    path: '/journal-entries',
    summary:
      'List the journal entries of a client account by sequence number: posted only unless include_drafts; date_from/date_to (inclusive) match the lines’ posting dates. Lines and their dimensions are included by default.',
    document: /* GraphQL */ `
      query ListJournalEntries($clientAccountId: Int!, $dateFrom: Date, $dateTo: Date, $relationType: String, $relationId: Int,
                               $includeDrafts: Boolean, $page: Int, $perPage: Int) {
        journalEntries(clientAccountId: $clientAccountId, dateFrom: $dateFrom, dateTo: $dateTo, relationType: $relationType,
                       relationId: $relationId, includeDrafts: $includeDrafts, page: $page, perPage: $perPage) {
          data: nodes { ...JournalEntryFields }
          meta { page pages per_page: perPage records }
        }
      }
      ${ENTRY_FIELDS}`,
    with: LIST_WITH,
    tenantParameter: 'client_account_id',
  },
  {
    method: 'GET',
    path: '/journal-entries/:id',
    summary: 'Get one journal entry with its lines, their dimensions and accounts (with their mandatory dimensions).',
    document: /* GraphQL */ `
      query GetJournalEntry($id: Int!) { journalEntry(id: $id) { ...JournalEntryFields } }
      ${ENTRY_FIELDS}`,
    with: ONE_WITH,
  },
  {
    method: 'POST',
    path: '/journal-entries/',
    summary:
      'Create a journal entry (the trailing slash is part of the path): posted with the next sequence number unless is_draft is true. Lines must balance in the accounting currency to the øre.',
    document: /* GraphQL */ `
      mutation CreateJournalEntry($input: CreateJournalEntryInput!) { createJournalEntry(input: $input) { ...JournalEntryFields } }
      ${ENTRY_FIELDS}`,
    status: 201,
    with: LIST_WITH,
  },
  {
    method: 'POST',
    path: '/journal-entries/batch',
    summary:
      'Bulk posting (our extension): up to 1,000 entries of one client account, each in the create shape (client_account_id may be left out), posted in order in one transaction under every rule of the single create; the rules’ reads are made once per batch. atomic (default true): all or nothing, any error refuses the batch with every error listed by index (400 entries.<index>.<field>: …, 409 when every failure is a voucher or opening-balance conflict) and nothing is written. atomic false: the valid entries are posted, each other answered in place. 201 {data: [{index, id, sequence_number} | {index, error: {status, code, message, issues}}]}.',
    document: /* GraphQL */ `
      mutation CreateJournalEntries($input: CreateJournalEntriesInput!) {
        createJournalEntries(input: $input) {
          data {
            index
            id
            sequence_number: sequenceNumber
            error { status code message(snakeCase: true) issues { path(snakeCase: true) message } }
          }
        }
      }`,
    status: 201,
    omitWhenNull: ['id', 'sequence_number', 'error'],
    toolset: 'bulk-posting',
  },
  {
    method: 'PUT',
    path: '/journal-entries/:id',
    summary: 'Replace a draft journal entry: send every line; client_account_id cannot change; is_draft false posts it. Posted entries cannot change (400).',
    document: /* GraphQL */ `
      mutation UpdateJournalEntry($id: Int!, $input: UpdateJournalEntryInput!) { updateJournalEntry(id: $id, input: $input) { ...JournalEntryFields } }
      ${ENTRY_FIELDS}`,
    with: LIST_WITH,
  },
  {
    method: 'PATCH',
    path: '/journal-entries/:id',
    summary:
      "Cancel a journal entry: cancelled 'Y' (anything else is a no-op). A posted entry needs cancellation_reason, gets a reversal entry posted today and is answered marked cancelled; a draft is deleted and the answer is {}.",
    document: /* GraphQL */ `
      mutation CancelJournalEntry($id: Int!, $cancelled: JSON!, $cancellationReason: String) {
        cancelJournalEntry(id: $id, cancelled: $cancelled, cancellationReason: $cancellationReason) { ...JournalEntryFields }
      }
      ${ENTRY_FIELDS}`,
    with: LIST_WITH,
    emptyBody: 'whenNull',
  },
  {
    method: 'DELETE',
    path: '/journal-entries/:id',
    summary: 'Delete a draft journal entry; answers {}. A posted entry is cancelled instead (400).',
    document: /* GraphQL */ `
      mutation DeleteJournalEntry($id: Int!) { deleteJournalEntry(id: $id) }`,
    emptyBody: 'always',
  },
]);
