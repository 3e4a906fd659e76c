import { defineOperations, type Operation } from '../operation.ts';
import { reportFiles, saftFiles } from './report-files.ts';
import { SUB_LEDGER_ACCOUNTS, type SubLedger } from '../../src/modules/reports/reports.rules.ts';

// spec 001 "Reports": six reports by GET, client_account_id required (a missing one is 403), errors in
// the v2 envelope, the answer's format by Accept (JSON unless a file type is asked for).

const GROUPING = /* GraphQL */ `grouping { level_1_code: level1Code level_1_name: level1Name level_2_code: level2Code level_2_name: level2Name level_3_code: level3Code level_3_name: level3Name }`;

/** spec 001 "General ledger row" (also the sub-ledgers'). */
const LEDGER_PAGE = /* GraphQL */ `
  data: nodes {
    grouping { level_1_code: level1Code level_1_name: level1Name incoming_balance: incomingBalance outgoing_balance: outgoingBalance movement }
    id
    line_id: lineId
    posting_date: postingDate
    account_id: accountId
    account_code: accountCode
    description
    debit
    credit
    debit_amount: debitAmount
    currency_code: currencyCode
    exchange_rate: exchangeRate
    tax_code: taxCode
    tax_base_amount: taxBaseAmount
    tax_amount: taxAmount
    reconciled_amount: reconciledAmount
    dimensions { type id name }
    journal_entry: journalEntry {
      id
      sequence_number: sequenceNumber
      cancelled
      is_draft: isDraft
      voucher_id: voucherId
      description
      related_object: relatedObject {
        id
        document_number: documentNumber
        document_date: documentDate
        due_date: dueDate
        payment_ref: paymentRef
        document_type: documentType
        business_partner: businessPartner { id name }
      }
      created_by: createdBy { id full_name: fullName }
    }
  }
  meta { records per_page: perPage page pages }`;

const report = (op: Omit<Operation, 'method' | 'errorShape' | 'tenantParameter'>): Operation => ({
  method: 'GET',
  errorShape: 'envelope',
  tenantParameter: 'client_account_id',
  ...op,
});

/** GET /reports/accounts-payable and /reports/accounts-receivable: the general-ledger row shape on one control account. */
function subLedgerReport(which: SubLedger): Operation {
  const account = SUB_LEDGER_ACCOUNTS[which];
  const name = which === 'payable' ? 'AccountsPayable' : 'AccountsReceivable';
  const field = which === 'payable' ? 'accountsPayable' : 'accountsReceivable';
  return report({
    path: `/reports/accounts-${which}`,
    representations: reportFiles(`accounts-${which}`),
    summary: `The accounts ${which} sub-ledger: lines on account ${account} between date_from and date_to (both required; 400 without), optionally of one business partner; the general-ledger row shape, paged from 1 (per_page 100).`,
    document: /* GraphQL */ `
      query Get${name}($clientAccountId: Int!, $businessPartnerId: Int, $dateFrom: Date, $dateTo: Date, $freeText: String, $includeReconciled: Boolean,
                       $includeDrafts: Boolean, $includeCancelled: Boolean, $page: Int, $perPage: Int) {
        ${field}(clientAccountId: $clientAccountId, businessPartnerId: $businessPartnerId, dateFrom: $dateFrom, dateTo: $dateTo, freeText: $freeText,
                 includeReconciled: $includeReconciled, includeDrafts: $includeDrafts, includeCancelled: $includeCancelled, page: $page, perPage: $perPage) {
          ${LEDGER_PAGE}
        }
      }`,
  });
}

export const reportOperations = defineOperations([
  report({
    path: '/reports/balance-sheet',
    representations: reportFiles('balance-sheet'),
    // spec 001: "balance (number)", the one report figure shown as a JSON number (exact: 1000000000003584.01)
    numbers: ['balance'],
    summary:
      'The balance sheet on report_date (default today): balance-sheet accounts (classes 1-2) with a non-zero balance (debit − credit, a number) and the result not yet closed into equity as account 2050; the rows net to zero. Grouped in three levels after NS 4102.',
    document: /* GraphQL */ `
      query GetBalanceSheet($clientAccountId: Int!, $reportDate: Date, $dimensions: [String!], $includeDrafts: Boolean) {
        balanceSheet(clientAccountId: $clientAccountId, reportDate: $reportDate, dimensions: $dimensions, includeDrafts: $includeDrafts) {
          ${GROUPING} account_code: accountCode account_name: accountName balance
        }
      }`,
  }),
  report({
    path: '/reports/income-statement',
    representations: reportFiles('income-statement'),
    summary:
      'The income statement between date_from (default 1 January of the year of date_to) and date_to (default today): result accounts (classes 3-8) with period_debit_movements, the movement (debit − credit) per calendar month keyed "1" to "12", all twelve always present. group_by_dimension gives a row per account and dimension value.',
    document: /* GraphQL */ `
      query GetIncomeStatement($clientAccountId: Int!, $dateFrom: Date, $dateTo: Date, $dimensions: [String!], $includeDrafts: Boolean,
                               $freeText: String, $groupByDimension: DimensionType) {
        incomeStatement(clientAccountId: $clientAccountId, dateFrom: $dateFrom, dateTo: $dateTo, dimensions: $dimensions, includeDrafts: $includeDrafts,
                        freeText: $freeText, groupByDimension: $groupByDimension) {
          ${GROUPING} account_code: accountCode account_name: accountName period_debit_movements: periodDebitMovements
          relation_type: relationType relation_id: relationId relation_name: relationName
        }
      }`,
  }),
  report({
    path: '/reports/trial-balance',
    representations: reportFiles('trial-balance', { fileParameters: { include_zero_movement: 'true', include_dimensions: 'true' } }),
    summary:
      'The trial balance between date_from and date_to (both required): per account (and dimension value with group_by_dimension) incoming_balance, debit, credit and outgoing_balance = incoming + debit − credit. JSON leaves out accounts with nothing to show; the file formats list every account unless include_zero_movement=false, and show dimension columns unless include_dimensions=false.',
    document: /* GraphQL */ `
      query GetTrialBalance($clientAccountId: Int!, $dateFrom: Date!, $dateTo: Date!, $accountCodes: [String!], $dimensions: [String!], $includeDrafts: Boolean,
                            $includeCancelled: Boolean, $includeZeroMovement: Boolean, $freeText: String, $groupByDimension: DimensionType) {
        trialBalance(clientAccountId: $clientAccountId, dateFrom: $dateFrom, dateTo: $dateTo, accountCodes: $accountCodes, dimensions: $dimensions,
                     includeDrafts: $includeDrafts, includeCancelled: $includeCancelled, includeZeroMovement: $includeZeroMovement, freeText: $freeText,
                     groupByDimension: $groupByDimension) {
          ${GROUPING} account_id: accountId account_code: accountCode account_name: accountName
          incoming_balance: incomingBalance debit credit outgoing_balance: outgoingBalance
          relation_type: relationType relation_id: relationId relation_name: relationName
        }
      }`,
  }),
  report({
    path: '/reports/general-ledger',
    representations: reportFiles('general-ledger'),
    summary:
      'The general ledger between date_from (default 1 January of the year of date_to) and date_to (default today): posted lines by account, date and voucher number, each with its account grouping (incoming and outgoing balance, movement) and journal entry. Paged from 1 (per_page 100, at most 1000).',
    document: /* GraphQL */ `
      query GetGeneralLedger($clientAccountId: Int!, $dateFrom: Date, $dateTo: Date, $accountCodes: [String!], $dimensions: [String!], $includeDrafts: Boolean,
                             $includeReconciled: Boolean, $includeCancelled: Boolean, $taxCodes: [String!], $freeText: String, $page: Int, $perPage: Int) {
        generalLedger(clientAccountId: $clientAccountId, dateFrom: $dateFrom, dateTo: $dateTo, accountCodes: $accountCodes, dimensions: $dimensions,
                      includeDrafts: $includeDrafts, includeReconciled: $includeReconciled, includeCancelled: $includeCancelled, taxCodes: $taxCodes,
                      freeText: $freeText, page: $page, perPage: $perPage) {
          ${LEDGER_PAGE}
        }
      }`,
  }),
  subLedgerReport('payable'),
  subLedgerReport('receivable'),
  report({
    path: '/reports/data-export',
    summary:
      'The SAF-T Financial 1.30 file of the posted ledger between date_from and date_to (both required): Accept text/xml streams the XML download; Accept application/zip starts the export as a job and answers 202 with a message, the ZIP is e-mailed to the requesting user when ready. 400 common.validation_error when the client account does not exist or has no organisation number.',
    document: /* GraphQL */ `
      query GetDataExport($clientAccountId: Int!, $dateFrom: Date!, $dateTo: Date!) {
        saftExport(clientAccountId: $clientAccountId, dateFrom: $dateFrom, dateTo: $dateTo) {
          client_account_id: clientAccountId date_from: dateFrom date_to: dateTo created_at: createdAt file_name: fileName
        }
      }`,
    representations: saftFiles,
  }),
]);
