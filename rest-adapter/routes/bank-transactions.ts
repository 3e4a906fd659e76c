import { defineOperations, withVariable } from '../operation.ts';
import { camt053Body } from '../../src/modules/bank-transactions/camt053-body.ts';

// spec 001, "Bank transaction" and "Bank transactions": GET/POST /bank-transactions, GET
// /bank-transactions/{id}, GET/POST /bank-transactions/{id}/statements; and POST /bank-statements,
// which the spec names ("bundling with opening and closing balances") without its detail.

const v = (relation: string) => `$${withVariable(relation)}`;

const DETAIL_FIELDS = /* GraphQL */ `
  fragment BankTransactionDetailFields on BankTransactionDetail {
    id
    transaction_type: transactionType
    account_name: accountName
    account_number: accountNumber
    account_currency_code: accountCurrencyCode
    archive_reference: archiveReference
    structured_reference: structuredReference
    bank_information: bankInformation
    amount
    currency_code: currencyCode
    description
    booking_date: bookingDate
    value_date: valueDate
    invoice_number: invoiceNumber
    sender_name: senderName
    sender_account: senderAccount
    receiver_name: receiverName
    receiver_account: receiverAccount
    transaction_uuid: transactionUuid
    statement_uuid: statementUuid
  }`;

const STATEMENT_SCALAR_FIELDS = /* GraphQL */ `
  fragment BankTransactionStatementScalarFields on BankTransactionStatement {
    id
    created_at: createdAt
    created_by_id: createdById
    client_account_id: clientAccountId
    bank_transaction_id: bankTransactionId
    category
    business_partner_id: businessPartnerId
    voucher_id: voucherId
    comment
  }`;

const PAYMENT_LINE_FIELDS = /* GraphQL */ `
  fragment BankPaymentLineFields on BankPaymentLine {
    id
    journal_entry_id: journalEntryId
    posting_date: postingDate
    account_id: accountId
    account_code: accountCode
    debit
    credit
    debit_fc: debitFc
    credit_fc: creditFc
    currency_code: currencyCode
    business_partner_id: businessPartnerId
    reconciled_amount: reconciledAmount
  }`;

/** The transaction's own fields (spec 001 "Bank transaction"). */
const TRANSACTION_SCALAR_FIELDS = /* GraphQL */ `
  fragment BankTransactionScalarFields on BankTransaction {
    id
    client_account_id: clientAccountId
    bank_account_id: bankAccountId
    bank_statement_id: bankStatementId
    payee_name: payeeName
    payee_bank_account_id: payeeBankAccountId
    payor_name: payorName
    payor_bank_account_id: payorBankAccountId
    message_id: messageId
    payment_id: paymentId
    instruction_id: instructionId
    end_to_end_id: endToEndId
    booking_date: bookingDate
    value_date: valueDate
    memo
    instructed_amount: instructedAmount
    instructed_currency_code: instructedCurrencyCode
    instructed_exchange_rate: instructedExchangeRate
    amount
    currency_code: currencyCode
    exchange_rate: exchangeRate
    bank_reference: bankReference
    entry_reference: entryReference
    external_reconciled_amount: externalReconciledAmount
    created_at: createdAt
  }`;

/** The transaction with its `with` relations. */
const TRANSACTION_FIELDS = /* GraphQL */ `
  fragment BankTransactionFields on BankTransaction {
    ...BankTransactionScalarFields
    details @include(if: ${v('details')}) { ...BankTransactionDetailFields }
    questions @include(if: ${v('questions')}) {
      id
      question_type: questionType
      status
      text
      created_at: createdAt
      closed_at: closedAt
      closed_by_id: closedById
    }
    statements @include(if: ${v('statements')}) { ...BankTransactionStatementScalarFields }
    posted_payments: postedPayments @include(if: ${v('posted_payments')}) {
      id
      sequence_number: sequenceNumber
      is_draft: isDraft
      cancelled
      posted_at: postedAt
      description
      transfer { account_entries: accountEntries { ...BankPaymentLineFields } }
    }
    receivable_payments: receivablePayments @include(if: ${v('receivable_payments')}) { ...BankPaymentLineFields }
    reconciled_documents: reconciledDocuments @include(if: ${v('reconciled_documents')}) {
      id
      document_type: documentType
      document_number: documentNumber
      document_date: documentDate
    }
  }
  ${TRANSACTION_SCALAR_FIELDS}
  ${DETAIL_FIELDS}
  ${STATEMENT_SCALAR_FIELDS}
  ${PAYMENT_LINE_FIELDS}`;

const RELATIONS = ['details', 'questions', 'statements', 'receivable_payments', 'reconciled_documents', 'posted_payments'] as const;

const STATEMENT_FIELDS = /* GraphQL */ `
  fragment BankTransactionStatementFields on BankTransactionStatement {
    ...BankTransactionStatementScalarFields
    bank_transaction: bankTransaction @include(if: ${v('bank_transaction')}) { ...BankTransactionScalarFields details { ...BankTransactionDetailFields } }
    business_partner: businessPartner @include(if: ${v('business_partner')}) { id name organization_number: organizationNumber }
    voucher @include(if: ${v('voucher')}) { id }
  }
  ${STATEMENT_SCALAR_FIELDS}
  ${TRANSACTION_SCALAR_FIELDS}
  ${DETAIL_FIELDS}`;

const BANK_STATEMENT_FIELDS = /* GraphQL */ `
  fragment BankStatementFields on BankStatement {
    id
    client_account_id: clientAccountId
    bank_account_id: bankAccountId
    from_date: fromDate
    to_date: toDate
    opening_balance: openingBalance
    closing_balance: closingBalance
    source
    message_id: messageId
    created_at: createdAt
    imported
    skipped
    transactions { ...BankTransactionFields }
  }
  ${TRANSACTION_FIELDS}`;

export const bankTransactionOperations = defineOperations([
  {
    method: 'GET',
    path: '/bank-transactions',
    summary:
      'List the bank transactions of a client account: booking date then amount ascending unless order_by; from_date/to_date match the booking date (inclusive). Fully booked transactions (external_reconciled_amount equal to amount) are left out unless include_externally_reconciled=true. Details are always included (spec 001: "always included on GET").',
    document: /* GraphQL */ `
      query ListBankTransactions($clientAccountId: Int!, $bankAccountId: Int, $fromDate: Date, $toDate: Date, $includeExternallyReconciled: Boolean,
                                 $orderBy: [String!], $page: Int, $perPage: Int) {
        bankTransactions(clientAccountId: $clientAccountId, bankAccountId: $bankAccountId, fromDate: $fromDate, toDate: $toDate,
                         includeExternallyReconciled: $includeExternallyReconciled, orderBy: $orderBy, page: $page, perPage: $perPage) {
          data: nodes { ...BankTransactionFields }
          meta { page pages per_page: perPage records }
        }
      }
      ${TRANSACTION_FIELDS}`,
    with: { allowed: RELATIONS, always: ['details'] },
    tenantParameter: 'client_account_id',
  },
  {
    method: 'GET',
    path: '/bank-transactions/:id',
    summary: 'Get one bank transaction; its details are always included (spec 001: "always included on GET").',
    document: /* GraphQL */ `
      query GetBankTransaction($id: Int!) { bankTransaction(id: $id) { ...BankTransactionFields } }
      ${TRANSACTION_FIELDS}`,
    with: { allowed: RELATIONS, always: ['details'] },
  },
  {
    method: 'POST',
    path: '/bank-transactions',
    summary:
      "Create a bank transaction (not on a statement): amount signed (positive incoming, negative outgoing); the company's own bank account is payee_bank_account_id of an incoming and payor_bank_account_id of an outgoing one. id and external_reconciled_amount are ignored. An outgoing transaction opens an ATTACH_FILE question. Details are not in the answer.",
    document: /* GraphQL */ `
      mutation CreateBankTransaction($input: CreateBankTransactionInput!) { createBankTransaction(input: $input) { ...BankTransactionFields } }
      ${TRANSACTION_FIELDS}`,
    status: 201,
    with: { allowed: RELATIONS },
  },
  {
    method: 'GET',
    path: '/bank-transactions/:id/statements',
    summary: 'The statements (explanations) of a bank transaction, oldest first, as an array.',
    document: /* GraphQL */ `
      query ListBankTransactionStatements($bankTransactionId: Int!) {
        bankTransactionStatements(bankTransactionId: $bankTransactionId) { nodes { ...BankTransactionStatementFields } }
      }
      ${STATEMENT_FIELDS}`,
    names: { bankTransactionId: 'id' },
    with: { allowed: ['bank_transaction', 'business_partner', 'voucher'] },
  },
  {
    method: 'POST',
    path: '/bank-transactions/:id/statements',
    summary:
      "Explain a bank transaction: category, business_partner_id, voucher_id and comment, all optional ({} is accepted, no body is 400). client_account_id and bank_transaction_id come from the transaction, created_by_id from the caller; the transaction's open ATTACH_FILE and STATEMENT questions are closed.",
    document: /* GraphQL */ `
      mutation CreateBankTransactionStatement($bankTransactionId: Int!, $input: CreateBankTransactionStatementInput!) {
        createBankTransactionStatement(bankTransactionId: $bankTransactionId, input: $input) { ...BankTransactionStatementFields }
      }
      ${STATEMENT_FIELDS}`,
    names: { bankTransactionId: 'id' },
    status: 201,
    bodyRequired: true,
    with: { allowed: ['bank_transaction', 'business_partner', 'voucher'] },
  },
  {
    method: 'POST',
    path: '/bank-statements',
    summary:
      'Import a bank statement in one transaction: JSON (bank_account_id, from_date, to_date, opening_balance, closing_balance, transactions: the POST /bank-transactions body without client_account_id) or a camt.053 document in `camt053` (bank_account_id then optional), or the camt.053 file itself as the body (Content-Type application/xml or text/xml, up to 10 MB) with client_account_id (and bank_account_id) in the query. opening_balance + the amounts must equal closing_balance. Transactions whose entry_reference the bank account has seen are skipped; imported and skipped count them.',
    document: /* GraphQL */ `
      mutation CreateBankStatement($input: ImportBankStatementInput!) { importBankStatement(input: $input) { ...BankStatementFields } }
      ${BANK_STATEMENT_FIELDS}`,
    status: 201,
    with: { allowed: RELATIONS },
    tenantParameter: 'client_account_id',
    bodyParser: camt053Body,
  },
]);
