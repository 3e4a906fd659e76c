import { defineOperations, withVariable } from '../operation.ts';

// spec 001, "Vouchers": GET /vouchers, GET /vouchers/{id}, DELETE /vouchers/{id} (v2 error envelope),
// POST /vouchers/merge, POST /vouchers/split, GET/POST /vouchers/{id}/statements.

const v = (relation: string) => `$${withVariable(relation)}`;

/** A file as a voucher's `attachments` embed it (its page images: GET the file). */
export const VOUCHER_FILE_FIELDS = /* GraphQL */ `
  fragment VoucherFileFields on File {
    id
    type
    file_name: fileName
    content_type: contentType
    size
    page_count: pageCount
    voucher_id: voucherId
    created_at: createdAt
    thumbnail_url: thumbnailUrl
    preview_url: previewUrl
    download_url: downloadUrl
    original_url: originalUrl
  }`;

/** A journal entry as a voucher embeds it: what says whether and how it books the voucher (the whole entry: GET /journal-entries/{id}). */
const VOUCHER_ENTRY_FIELDS = /* GraphQL */ `
  fragment VoucherJournalEntryFields on JournalEntry {
    id
    sequence_number: sequenceNumber
    description
    is_draft: isDraft
    cancelled
    cancellation_entry_id: cancellationEntryId
    posted_at: postedAt
    voucher_id: voucherId
    relation_type: relationType
    relation_id: relationId
  }`;

/** A voucher statement (fields designed here: spec 001 says "not shown"). */
export const VOUCHER_STATEMENT_FIELDS = /* GraphQL */ `
  fragment VoucherStatementFields on VoucherStatement {
    id
    created_at: createdAt
    created_by_id: createdById
    client_account_id: clientAccountId
    voucher_id: voucherId
    purpose
    item_categories: itemCategories
    payment_method: paymentMethod
    payor_id: payorId
    project_id: projectId
    is_paid: isPaid
    comment
  }`;

const TASK_FIELDS = /* GraphQL */ `
  fragment VoucherTaskFields on Task {
    id
    title
    description
    status
    task_type: taskType
    assigned_to_id: assignedToId
    relation_type: relationType
    relation_id: relationId
    completed_at: completedAt
    created_at: createdAt
  }`;

/** The voucher's own fields (spec 001 "Voucher"), without relations: also embedded by voucher collections. */
export const VOUCHER_SCALAR_FIELDS = /* GraphQL */ `
  fragment VoucherScalarFields on Voucher {
    id
    created_at: createdAt
    created_by_id: createdById
    updated_at: updatedAt
    updated_by_id: updatedById
    client_account_id: clientAccountId
    type
    file_name: fileName
    content_type: contentType
    channel
    processing_track: processingTrack
    size
    is_active: isActive
    thumbnail_url: thumbnailUrl
    preview_url: previewUrl
    download_url: downloadUrl
    original_url: originalUrl
    page_images: pageImages { page_number: pageNumber preview_url: previewUrl }
    document_date: documentDate
    status
    collection_id: collectionId
    project_id: projectId
    workflow_status: workflowStatus
  }`;

/**
 * A voucher's documents, embedded: what says what the voucher is and whether it is settled (the whole
 * document, with its relations, is GET /documents/{id}); few fields, so the voucher with every
 * relation stays within the query limits.
 */
const VOUCHER_DOCUMENT_FIELDS = /* GraphQL */ `
  fragment VoucherDocumentFields on Document {
    id
    document_type: documentType
    document_status: documentStatus
    document_number: documentNumber
    document_date: documentDate
    gross_amount: grossAmount
    open_amount: openAmount
    payment_status: paymentStatus
    is_draft: isDraft
  }`;

/** The voucher with its `with` relations (spec 001 "Voucher relations"). */
const VOUCHER_FIELDS = /* GraphQL */ `
  fragment VoucherFields on Voucher {
    ...VoucherScalarFields
    attachments @include(if: ${v('attachments')}) { ...VoucherFileFields }
    documents @include(if: ${v('documents')}) { ...VoucherDocumentFields }
    document @include(if: ${v('document')}) { ...VoucherDocumentFields }
    journal_entries: journalEntries @include(if: ${v('journal_entries')}) { ...VoucherJournalEntryFields }
    journal_entry: journalEntry @include(if: ${v('journal_entry')}) { ...VoucherJournalEntryFields }
    statements @include(if: ${v('statements')}) { ...VoucherStatementFields }
    statement @include(if: ${v('statement')}) { ...VoucherStatementFields }
    tasks @include(if: ${v('tasks')}) { ...VoucherTaskFields }
    questions @include(if: ${v('questions')}) {
      id
      voucher_id: voucherId
      question_type: questionType
      text
      status
      answer
      created_at: createdAt
      answered_at: answeredAt
      answered_by_id: answeredById
    }
    collection @include(if: ${v('collection')}) {
      id
      client_account_id: clientAccountId
      name
      description
      created_at: createdAt
      created_by_id: createdById
      updated_at: updatedAt
      updated_by_id: updatedById
    }
    project @include(if: ${v('project')}) {
      id
      client_account_id: clientAccountId
      sequence_number: sequenceNumber
      name
      description
      is_active: isActive
    }
  }
  ${VOUCHER_SCALAR_FIELDS}
  ${VOUCHER_FILE_FIELDS}
  ${VOUCHER_ENTRY_FIELDS}
  ${VOUCHER_STATEMENT_FIELDS}
  ${TASK_FIELDS}
  ${VOUCHER_DOCUMENT_FIELDS}`;

export const VOUCHER_RELATIONS = ['attachments', 'documents', 'document', 'journal_entries', 'journal_entry', 'statements', 'statement', 'tasks', 'questions', 'collection', 'project'] as const;
const WITH = { allowed: VOUCHER_RELATIONS } as const;

export const voucherOperations = defineOperations([
  {
    method: 'GET',
    path: '/vouchers',
    summary:
      "List vouchers (all of the caller's client accounts unless client_account_id names some), newest first: filters by status, document type and status, payment status, partner, collection, project, account and tax code, dates, free text; similar_to ranks by content similarity.",
    document: /* GraphQL */ `
      query ListVouchers($clientAccountIds: [Int!], $status: [VoucherStatus!], $documentTypes: [String!], $documentStatuses: [String!],
                         $paymentStatuses: [String!], $businessPartnerIds: [Int!], $collectionIds: [Int!], $projectIds: [Int!],
                         $accountCodes: [String!], $taxCodes: [String!], $documentDateFrom: Date, $documentDateTo: Date,
                         $dueDateFrom: Date, $dueDateTo: Date, $postingDateFrom: Date, $postingDateTo: Date, $freeText: String,
                         $similarTo: Int, $hasProject: Boolean, $hasCollection: Boolean, $hasJournalEntry: Boolean,
                         $hasDocument: Boolean, $hasAttachment: Boolean, $orderBy: String, $page: Int, $perPage: Int) {
        vouchers(clientAccountIds: $clientAccountIds, status: $status, documentTypes: $documentTypes, documentStatuses: $documentStatuses,
                 paymentStatuses: $paymentStatuses, businessPartnerIds: $businessPartnerIds, collectionIds: $collectionIds,
                 projectIds: $projectIds, accountCodes: $accountCodes, taxCodes: $taxCodes, documentDateFrom: $documentDateFrom,
                 documentDateTo: $documentDateTo, dueDateFrom: $dueDateFrom, dueDateTo: $dueDateTo, postingDateFrom: $postingDateFrom,
                 postingDateTo: $postingDateTo, freeText: $freeText, similarTo: $similarTo, hasProject: $hasProject,
                 hasCollection: $hasCollection, hasJournalEntry: $hasJournalEntry, hasDocument: $hasDocument,
                 hasAttachment: $hasAttachment, orderBy: $orderBy, page: $page, perPage: $perPage) {
          data: nodes { ...VoucherFields }
          meta { records per_page: perPage page pages }
        }
      }
      ${VOUCHER_FIELDS}`,
    names: {
      clientAccountIds: 'client_account_id',
      documentTypes: 'document_type',
      documentStatuses: 'document_status',
      paymentStatuses: 'payment_status',
      businessPartnerIds: 'business_partner_id',
      collectionIds: 'collection_id',
      projectIds: 'project_id',
      accountCodes: 'account_code',
      taxCodes: 'tax_code',
    },
    with: WITH,
  },
  {
    method: 'GET',
    path: '/vouchers/:id',
    summary: 'Get one voucher; `with` embeds its relations.',
    document: /* GraphQL */ `
      query GetVoucher($id: Int!) { voucher(id: $id) { ...VoucherFields } }
      ${VOUCHER_FIELDS}`,
    with: WITH,
  },
  {
    method: 'DELETE',
    path: '/vouchers/:id',
    summary:
      'Delete a voucher with its draft journal entries and draft documents (204). 400 while a posted, non-cancelled journal entry or document, or a receivable document created in the app, points at it. Errors in the v2 envelope.',
    document: /* GraphQL */ `
      mutation DeleteVoucher($id: Int!) { deleteVoucher(id: $id) }`,
    status: 204,
    errorShape: 'envelope',
  },
  {
    method: 'POST',
    path: '/vouchers/merge',
    summary:
      'Merge vouchers of one client account into one new PDF voucher: PDFs and images (JPEG, PNG) combined in voucher_ids order, other files attached; source_action NONE (default), ARCHIVE or DELETE. 201 with the merged voucher.',
    document: /* GraphQL */ `
      mutation MergeVouchers($input: MergeVouchersInput!) { mergeVouchers(input: $input) { ...VoucherFields } }
      ${VOUCHER_FIELDS}`,
    status: 201,
    bodyNamesRecords: true,
    // source_action ARCHIVE or DELETE removes the source vouchers
    destructive: true,
    with: WITH,
  },
  {
    method: 'POST',
    path: '/vouchers/split',
    summary:
      "Split a PDF voucher into one new PDF voucher per page range ([start_page, end_page], 1-based, inclusive, at least 2, not overlapping); every statement of the source is copied to each. 201 with the array of new vouchers.",
    document: /* GraphQL */ `
      mutation SplitVoucher($input: SplitVoucherInput!) { splitVoucher(input: $input) { ...VoucherFields } }
      ${VOUCHER_FIELDS}`,
    status: 201,
    bodyNamesRecords: true,
    // source_action ARCHIVE or DELETE removes the source vouchers
    destructive: true,
    with: WITH,
  },
  {
    method: 'GET',
    path: '/vouchers/:id/statements',
    summary: 'List the statements of a voucher, newest first (page, per_page).',
    document: /* GraphQL */ `
      query ListVoucherStatements($id: Int!, $page: Int, $perPage: Int) {
        voucherStatements(voucherId: $id, page: $page, perPage: $perPage) {
          data: nodes { ...VoucherStatementFields }
          meta { records per_page: perPage page pages }
        }
      }
      ${VOUCHER_STATEMENT_FIELDS}`,
  },
  {
    method: 'POST',
    path: '/vouchers/:id/statements',
    summary:
      "Create a statement about a voucher (purpose, item_categories, payment_method, payor_id, project_id, is_paid, comment; at least one). project_id is set on the voucher and on its draft journal entries' lines (posted entries are left unchanged); is_paid states its documents PAID. 201 with the statement and its effects.",
    document: /* GraphQL */ `
      mutation CreateVoucherStatement($id: Int!, $input: CreateVoucherStatementInput!) {
        createVoucherStatement(voucherId: $id, input: $input) {
          ...VoucherStatementFields
          effects {
            voucher_project_set: voucherProjectSet
            draft_journal_entry_ids: draftJournalEntryIds
            posted_journal_entry_ids_unchanged: postedJournalEntryIdsUnchanged
            document_ids_payment_stated: documentIdsPaymentStated
          }
        }
      }
      ${VOUCHER_STATEMENT_FIELDS}`,
    status: 201,
    bodyRequired: true,
  },
]);
