import { defineOperations } from '../operation.ts';

// spec 002 "Equity transaction" and "Equity": GET /equity/transactions, GET /equity/transactions/{id},
// POST /equity/transactions/{issue,transfer,buyback,retire,split}, GET /equity/positions,
// /equity/cap-table, /equity/share-classes, /equity/transaction-types. Errors {error, status}: 400, 403, 404.
const PERSON = 'id first_name: firstName last_name: lastName email';

const EQUITY_TRANSACTION_FIELDS = /* GraphQL */ `
  fragment EquityTransactionFields on EquityTransaction {
    id
    client_account_id: clientAccountId
    transaction_date: transactionDate
    transaction_type: transactionType
    transaction_group_id: transactionGroupId
    business_partner_id: businessPartnerId
    share_class: shareClass
    quantity
    price_per_share: pricePerShare
    notes
    split_ratio_numerator: splitRatioNumerator
    split_ratio_denominator: splitRatioDenominator
    created_at: createdAt
    created_by_id: createdById
    updated_at: updatedAt
    updated_by_id: updatedById
    business_partner: businessPartner @include(if: $with_business_partner) {
      id
      name
      organization_number: organizationNumber
      email
      is_shareholder: isShareholder
      is_self: isSelf
    }
    created_by: createdBy @include(if: $with_created_by) { ${PERSON} }
    updated_by: updatedBy @include(if: $with_updated_by) { ${PERSON} }
  }`;

const WITH = { allowed: ['business_partner', 'created_by', 'updated_by'] } as const;
const CLASSES = 'share_class: COMMON, PREFERRED, SERIES_A, SERIES_B, SERIES_C, SEED, CONVERTIBLE_NOTE, SAFE';
const WRITE_RULES =
  'quantity is whole shares, at least 1; price_per_share NOK, not negative, at most 6 decimals; transaction_date defaults to today (Europe/Oslo); notes at most 1000 characters. ' +
  'Every business partner must belong to the client account. Serialised per client account.';
const COMPANY =
  "company_business_partner_id is the company itself: the account's own business partner (is_self) or one with the account's organisation number; on an account with no own partner yet, " +
  'the partner named becomes it (is_self). Another partner is a 400 naming the own one.';
const INSUFFICIENT = '400 {error: "Insufficient shares: <holder> has N <class>, needs M"} when the holder has too few shares on that date (or a later date would go negative).';

export const equityOperations = defineOperations([
  {
    method: 'GET',
    path: '/equity/transactions',
    summary:
      'List equity transaction entries of a client account (required), filtered by business_partner_id, share_class, transaction_type, date_from and date_to (inclusive), ' +
      'ordered by transaction_date then id; page (1), per_page (100, at most 100).',
    document: /* GraphQL */ `
      query ListEquityTransactions($clientAccountId: Int!, $businessPartnerId: Int, $shareClass: ShareClass, $transactionType: EquityTransactionType, $dateFrom: Date, $dateTo: Date, $page: Int, $perPage: Int) {
        equityTransactions(clientAccountId: $clientAccountId, businessPartnerId: $businessPartnerId, shareClass: $shareClass, transactionType: $transactionType, dateFrom: $dateFrom, dateTo: $dateTo, page: $page, perPage: $perPage) {
          data: nodes { ...EquityTransactionFields }
          meta { page pages per_page: perPage records }
        }
      }
      ${EQUITY_TRANSACTION_FIELDS}`,
    with: WITH,
  },
  {
    method: 'GET',
    path: '/equity/transactions/:id',
    summary: 'Get one equity transaction entry; with=business_partner,created_by,updated_by.',
    document: /* GraphQL */ `
      query GetEquityTransaction($id: Int!) { equityTransaction(id: $id) { ...EquityTransactionFields } }
      ${EQUITY_TRANSACTION_FIELDS}`,
    with: WITH,
  },
  {
    method: 'POST',
    path: '/equity/transactions/issue',
    summary: `Issue new shares to a shareholder (not the company itself): one ISSUANCE entry +quantity; 201 with the shareholder's entry. ${CLASSES}. ${WRITE_RULES}`,
    document: /* GraphQL */ `
      mutation CreateEquityIssuance($input: IssueSharesInput!) { issueShares(input: $input) { ...EquityTransactionFields } }
      ${EQUITY_TRANSACTION_FIELDS}`,
    status: 201,
    with: WITH,
  },
  {
    method: 'POST',
    path: '/equity/transactions/transfer',
    summary: `Transfer shares between two different holders: TRANSFER entries −quantity (sender) and +quantity (recipient); 201 with the recipient's entry. ${WRITE_RULES} ${INSUFFICIENT}`,
    document: /* GraphQL */ `
      mutation CreateEquityTransfer($input: TransferSharesInput!) { transferShares(input: $input) { ...EquityTransactionFields } }
      ${EQUITY_TRANSACTION_FIELDS}`,
    status: 201,
    with: WITH,
  },
  {
    method: 'POST',
    path: '/equity/transactions/buyback',
    summary:
      'The company buys shares back from a holder: BUYBACK entries −quantity (seller) and +quantity (company_business_partner_id: treasury shares); ' +
      `201 with the company's entry. ${COMPANY} ${WRITE_RULES} ${INSUFFICIENT}`,
    document: /* GraphQL */ `
      mutation CreateEquityBuyback($input: BuybackSharesInput!) { buybackShares(input: $input) { ...EquityTransactionFields } }
      ${EQUITY_TRANSACTION_FIELDS}`,
    status: 201,
    with: WITH,
  },
  {
    method: 'POST',
    path: '/equity/transactions/retire',
    summary: `Retire treasury shares: one RETIREMENT entry −quantity from company_business_partner_id; 201 with it. ${COMPANY} ${WRITE_RULES} ${INSUFFICIENT}`,
    document: /* GraphQL */ `
      mutation CreateEquityRetirement($input: RetireSharesInput!) { retireShares(input: $input) { ...EquityTransactionFields } }
      ${EQUITY_TRANSACTION_FIELDS}`,
    status: 201,
    with: WITH,
  },
  {
    method: 'POST',
    path: '/equity/transactions/split',
    summary:
      "Split (or consolidate) a holder's position from old_quantity (must equal the current position) to new_quantity: SPLIT entries −old and +new with split_ratio_numerator/denominator = new/old reduced; " +
      `201 with the +new entry. transaction_date not before the holder's latest entry of the class. ${WRITE_RULES} ${INSUFFICIENT}`,
    document: /* GraphQL */ `
      mutation SplitShares($input: SplitSharesInput!) { splitShares(input: $input) { ...EquityTransactionFields } }
      ${EQUITY_TRANSACTION_FIELDS}`,
    status: 201,
    with: WITH,
  },
  {
    method: 'GET',
    path: '/equity/positions',
    summary:
      'Positions of a client account (required): {positions: [{business_partner_id, share_class, quantity, cost_basis}]} summed from the entries, filtered by business_partner_id and share_class; ' +
      'include_void (default false) also lists positions back at 0 shares. cost_basis: NOK by weighted average, to the øre.',
    document: /* GraphQL */ `
      query GetEquityPositions($clientAccountId: Int!, $businessPartnerId: Int, $shareClass: ShareClass, $includeVoid: Boolean) {
        equityPositions(clientAccountId: $clientAccountId, businessPartnerId: $businessPartnerId, shareClass: $shareClass, includeVoid: $includeVoid) {
          positions { business_partner_id: businessPartnerId share_class: shareClass quantity cost_basis: costBasis }
        }
      }`,
  },
  {
    method: 'GET',
    path: '/equity/cap-table',
    summary:
      'The cap table: client_account_id and company_business_partner_id required. {shareholders: [{business_partner_id, name, positions: {<share_class>: {shares, percentage}}, ' +
      'total_shares, total_percentage}], share_classes, total_shares, treasury_shares: {<share_class>: shares}}; treasury shares (the company\'s holdings) are in no total; percentages have 2 decimals and sum to 100.00. ' +
      "company_business_partner_id is the company itself (the account's own business partner, or one with its organisation number), or any partner of an account with no own partner yet (read as the company; nothing is recorded); another partner is a 400 naming the own one.",
    document: /* GraphQL */ `
      query GetEquityCapTable($clientAccountId: Int!, $companyBusinessPartnerId: Int!) {
        equityCapTable(clientAccountId: $clientAccountId, companyBusinessPartnerId: $companyBusinessPartnerId) {
          shareholders { business_partner_id: businessPartnerId name positions total_shares: totalShares total_percentage: totalPercentage }
          share_classes: shareClasses
          total_shares: totalShares
          treasury_shares: treasuryShares
        }
      }`,
  },
  {
    method: 'GET',
    path: '/equity/share-classes',
    summary: 'The share classes: {share_classes: [{value, label}]}.',
    document: /* GraphQL */ `
      query ListEquityShareClasses { equityShareClasses { share_classes: shareClasses { value label } } }`,
  },
  {
    method: 'GET',
    path: '/equity/transaction-types',
    summary: 'The equity transaction types: {transaction_types: [{value, label}]}.',
    document: /* GraphQL */ `
      query ListEquityTransactionTypes { equityTransactionTypes { transaction_types: transactionTypes { value label } } }`,
  },
]);
