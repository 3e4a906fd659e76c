import { base64Pdf, defineOperations, type Operation } from '../operation.ts';

// spec 001 "Commercial document" and "Documents": GET/POST /documents, GET/PUT/PATCH/DELETE
// /documents/{id}, POST /documents/preview. Relations by `with_relations` (the spec's name).

/** spec 001: "Field shapes of BusinessPartner, BankAccount, DocumentReference and PaymentRequest records: not shown" — kept small (GraphQL has the rest). */
const PARTNER = /* GraphQL */ `id name organization_number: organizationNumber email`;

// At most 100 aliases with every relation (GRAPHQL_MAX_ALIASES, which REST documents keep to as
// client queries do): the relations whose shape the spec does not show are kept to a few fields
// here; GraphQL has all of them (sent_at, the partner's and bank account's other fields …).
const DOCUMENT_FIELDS = /* GraphQL */ `
  fragment DocumentFields on Document {
    id
    created_at: createdAt
    created_by_id: createdById
    updated_at: updatedAt
    updated_by_id: updatedById
    client_account_id: clientAccountId
    business_partner_id: businessPartnerId
    payor_id: payorId
    collector_id: collectorId
    document_date: documentDate
    due_date: dueDate
    period_start: periodStart
    period_end: periodEnd
    period_description: periodDescription
    document_type: documentType
    document_status: documentStatus
    document_number: documentNumber
    document_uuid: documentUuid
    document_description: documentDescription
    buyer_reference: buyerReference
    order_reference: orderReference
    note
    collection_case_number: collectionCaseNumber
    collection_severity: collectionSeverity
    payment_status: paymentStatus
    stated_payment_status: statedPaymentStatus
    payment_means: paymentMeans
    payment_ref: paymentRef
    payment_card_number: paymentCardNumber
    gross_amount: grossAmount
    net_amount: netAmount
    open_amount: openAmount
    pending_payment_amount: pendingPaymentAmount
    late_fee_amount: lateFeeAmount
    interest_amount: interestAmount
    bank_account_id: bankAccountId
    voucher_id: voucherId
    journal_entry_id: journalEntryId
    currency_id: currencyId
    currency_code: currencyCode
    exchange_rate: exchangeRate
    is_draft: isDraft
    is_imported: isImported
    is_active: isActive
    is_archived: isArchived
    is_payable: isPayable
    is_unpaid: isUnpaid
    is_available_for_payment: isAvailableForPayment
    is_being_paid: isBeingPaid
    is_reconcilable: isReconcilable
    is_unreconciled: isUnreconciled
    archive_category: archiveCategory
    send_document: sendDocument
    business_partner: businessPartner @include(if: $with_business_partner) { ${PARTNER} }
    payor @include(if: $with_payor) { ${PARTNER} }
    collector @include(if: $with_collector) { ${PARTNER} }
    bank_account: bankAccount @include(if: $with_bank_account) { id name account_number: accountNumber bic }
    files @include(if: $with_files) { id file_name: fileName size download_url: downloadUrl preview_url: previewUrl }
    structured_data: structuredData @include(if: $with_structured_data)
    item_lines: itemLines @include(if: $with_item_lines) {
      id document_id: documentId line_id: lineId item_id: itemId item_no: itemNo item_name: itemName description price
      currency_code: currencyCode quantity unit_id: unitId tax_code_id: taxCodeId tax_rate: taxRate
      tax_amount_lc: taxAmountLc tax_amount_fc: taxAmountFc total_lc: totalLc total_fc: totalFc
      account_id: accountId item_collection_entry_id: itemCollectionEntryId
    }
    payment_lines: paymentLines @include(if: $with_payment_lines) {
      id document_id: documentId line_type: lineType requested_execution_date: requestedExecutionDate
      debtor_business_partner_id: debtorBusinessPartnerId debtor_bank_account_id: debtorBankAccountId
      creditor_business_partner_id: creditorBusinessPartnerId creditor_bank_account_id: creditorBankAccountId
      amount currency_code: currencyCode creditor_reference: creditorReference
    }
    reconciliation_lines: reconciliationLines @include(if: $with_reconciliation_lines) {
      id document_id: documentId line_id: lineId description reconciliation_type: reconciliationType amount
      currency_code: currencyCode transaction_date: transactionDate
    }
    document_references: documentReferences @include(if: $with_document_references) {
      id reference_type: referenceType referenced_document_id: referencedDocumentId reference_number: referenceNumber
    }
    payment_requests: paymentRequests @include(if: $with_payment_requests) { id amount status }
  }`;

export const DOCUMENT_RELATIONS = [
  'business_partner',
  'payor',
  'collector',
  'bank_account',
  'files',
  'structured_data',
  'item_lines',
  'payment_lines',
  'reconciliation_lines',
  'document_references',
  'payment_requests',
] as const;

const WITH = { allowed: DOCUMENT_RELATIONS, parameter: 'with_relations' } as const;
/** Writes answer the document with its lines, payment lines and references unless with_relations says otherwise. */
const WITH_ON_WRITE = { ...WITH, default: ['item_lines', 'payment_lines', 'document_references'] } as const;

/** POST /documents/preview answers the PDF itself (no JSON); the GraphQL field carries it base64. */
const previewPdf = base64Pdf('The document as a PDF (Norwegian invoice layout), made from the body as POST /documents would save it; nothing is saved.');

const document = (op: Omit<Operation, 'with'> & { with?: Operation['with'] }): Operation => ({ with: WITH, ...op });

export const documentOperations = defineOperations([
  document({
    method: 'GET',
    path: '/documents',
    tenantParameter: 'client_account_id',
    summary:
      'List the documents of a client account, filtered by partner, dates, type, status, number, KID, amounts, payment status and the derived is_* flags; match_bank_transaction_id lists open documents a bank transaction could pay. document_date descending by default; paged from 1 (per_page 100).',
    document: /* GraphQL */ `
      query ListDocuments($clientAccountId: Int!, $businessPartnerId: Int, $fromDocumentDate: Date, $toDocumentDate: Date, $documentDate: Date, $dueDate: Date,
                          $documentType: [DocumentType!], $documentStatus: [DocumentStatus!], $documentNumber: String, $paymentReference: String,
                          $grossAmount: Decimal, $openAmount: Decimal, $pendingPaymentAmount: Decimal, $paymentStatus: [DocumentPaymentStatus!],
                          $isActive: Boolean, $isPayable: Boolean, $isUnpaid: Boolean, $isAvailableForPayment: Boolean, $isBeingPaid: Boolean,
                          $isReconcilable: Boolean, $isUnreconciled: Boolean, $matchBankTransactionId: Int, $orderBy: [String!], $page: Int, $perPage: Int) {
        documents(clientAccountId: $clientAccountId, businessPartnerId: $businessPartnerId, fromDocumentDate: $fromDocumentDate, toDocumentDate: $toDocumentDate,
                  documentDate: $documentDate, dueDate: $dueDate, documentType: $documentType, documentStatus: $documentStatus, documentNumber: $documentNumber,
                  paymentReference: $paymentReference, grossAmount: $grossAmount, openAmount: $openAmount, pendingPaymentAmount: $pendingPaymentAmount,
                  paymentStatus: $paymentStatus, isActive: $isActive, isPayable: $isPayable, isUnpaid: $isUnpaid, isAvailableForPayment: $isAvailableForPayment,
                  isBeingPaid: $isBeingPaid, isReconcilable: $isReconcilable, isUnreconciled: $isUnreconciled, matchBankTransactionId: $matchBankTransactionId,
                  orderBy: $orderBy, page: $page, perPage: $perPage) {
          data: nodes { ...DocumentFields }
          meta { page pages per_page: perPage records }
        }
      }
      ${DOCUMENT_FIELDS}`,
  }),
  document({
    method: 'POST',
    path: '/documents',
    status: 201,
    with: WITH_ON_WRITE,
    summary:
      'Create a document: a draft (is_draft true) or, by default, finalized: numbered (sales types), its journal entry posted for sales and purchase types (credit notes reversed), e-mailed to the partner with send_document. Item lines get VAT from the tax code on the document date.',
    document: /* GraphQL */ `
      mutation CreateDocument($input: CreateDocumentInput!) { createDocument(input: $input) { ...DocumentFields } }
      ${DOCUMENT_FIELDS}`,
  }),
  {
    method: 'POST',
    path: '/documents/preview',
    summary: 'The PDF of a document from the same body as POST /documents (application/pdf); nothing is saved; the same 400s as create.',
    document: /* GraphQL */ `
      mutation PreviewDocument($input: CreateDocumentInput!) {
        previewDocument(input: $input) { file_name: fileName content_type: contentType content_base64: contentBase64 }
      }`,
    representations: previewPdf,
  },
  document({
    method: 'GET',
    path: '/documents/:id',
    summary: 'Get one document.',
    document: /* GraphQL */ `
      query GetDocument($id: Int!) { document(id: $id) { ...DocumentFields } }
      ${DOCUMENT_FIELDS}`,
  }),
  ...(['PUT', 'PATCH'] as const).map((method) =>
    document({
      method,
      path: '/documents/:id',
      with: WITH_ON_WRITE,
      summary:
        'Update a document: only the fields sent change. A draft may change anything (item_lines replace its lines) and is finalized by is_draft false; a finalized document keeps its type, partner, dates, number, currency, lines, voucher, KID and bank account (400: credit it instead).',
      document: /* GraphQL */ `
        mutation ${method === 'PUT' ? 'Update' : 'Patch'}Document($id: Int!, $input: UpdateDocumentInput!) { updateDocument(id: $id, input: $input) { ...DocumentFields } }
        ${DOCUMENT_FIELDS}`,
    }),
  ),
  {
    method: 'DELETE',
    path: '/documents/:id',
    status: 204,
    summary: 'Delete a draft document (204); a finalized document cannot be deleted (400: credit it instead).',
    document: /* GraphQL */ `mutation DeleteDocument($id: Int!) { deleteDocument(id: $id) }`,
  },
]);
