import { defineOperations } from '../operation.ts';

// spec 002 "Tax return" and "Tax returns": the fields, relation created_by, net_wealth with
// with_net_wealth=true; preview, fetch-prefilled and validate (shapes "not shown": designed in the
// module and the README), submit, import, cancel. Errors {error, status}: 400, 403, 404; an upstream
// failure 500. /tax-returns/preview is listed before /tax-returns/:id so the literal path wins.
const PERSON = 'id first_name: firstName last_name: lastName email';

const TAX_RETURN_FIELDS = /* GraphQL */ `
  fragment TaxReturnFields on TaxReturn {
    id
    client_account_id: clientAccountId
    reporting_year: reportingYear
    from_date: fromDate
    to_date: toDate
    tax_authority_reference: taxAuthorityReference
    portal_instance_id: portalInstanceId
    status
    submitted_at: submittedAt
    error_message: errorMessage
    receipt_voucher_id: receiptVoucherId
    created_at: createdAt
    created_by_id: createdById
    created_by: createdBy @include(if: $with_created_by) { ${PERSON} }
  }`;

const NET_WEALTH = /* GraphQL */ `
  net_wealth: netWealth @include(if: $withNetWealth) {
    assets { code description amount }
    debts { code description amount }
    total_assets: totalAssets
    total_debts: totalDebts
    net_wealth: netWealth
  }`;

const SECTION = 'lines { code description amount accounts } sum';
const PREVIEW_FIELDS = /* GraphQL */ `
  client_account_id: clientAccountId
  org_number: orgNumber
  reporting_year: reportingYear
  from_date: fromDate
  to_date: toDate
  resultatregnskap {
    driftsinntekter { ${SECTION} }
    driftskostnader { ${SECTION} }
    driftsresultat
    finansinntekter { ${SECTION} }
    finanskostnader { ${SECTION} }
    netto_finans: nettoFinans
    resultat_foer_skatt: resultatFoerSkatt
    skattekostnad { ${SECTION} }
    aarsresultat
    disponering { ${SECTION} }
  }
  balanse {
    eiendeler { anleggsmidler { ${SECTION} } omloepsmidler { ${SECTION} } sum }
    egenkapital_og_gjeld: egenkapitalOgGjeld { egenkapital { ${SECTION} } langsiktig_gjeld: langsiktigGjeld { ${SECTION} } kortsiktig_gjeld: kortsiktigGjeld { ${SECTION} } sum }
  }
  unmapped_accounts: unmappedAccounts { account_code: accountCode account_name: accountName amount reason }
  checks { code ok message }`;

const FINDING = 'severity code message path';
const WITH = { allowed: ['created_by'] } as const;
const STATUSES = 'Statuses: DRAFT (the portal kept it a draft: error_message), SUBMITTED, APPROVED, REJECTED, CANCELLED, IMPORTED (an earlier filing, excluded from submit, cancel and refresh).';

export const taxReturnOperations = defineOperations([
  {
    method: 'GET',
    path: '/tax-returns',
    summary:
      'List tax returns: client_account_id (one or a list; default every account the caller may see), reporting_year, status (comma-separated), ' +
      'order_by (id, reporting_year, status, created_at, submitted_at, client_account_id; - for descending; default -reporting_year), page (1), page_size (100, at most 1000). ' + STATUSES,
    document: /* GraphQL */ `
      query ListTaxReturns($clientAccountIds: [Int!], $reportingYear: Int, $status: [TaxReturnStatus!], $orderBy: [String!], $page: Int, $pageSize: Int) {
        taxReturns(clientAccountIds: $clientAccountIds, reportingYear: $reportingYear, status: $status, orderBy: $orderBy, page: $page, pageSize: $pageSize) {
          data: nodes { ...TaxReturnFields }
          meta { page pages per_page: perPage records }
        }
      }
      ${TAX_RETURN_FIELDS}`,
    names: { clientAccountIds: 'client_account_id' },
    with: WITH,
  },
  {
    method: 'GET',
    path: '/tax-returns/preview',
    summary:
      'The næringsspesifikasjon computed from the ledger for client_account_id and reporting_year (required), from_date (default 1 January) to to_date (default 31 December): ' +
      'resultatregnskap (driftsinntekter, driftskostnader, driftsresultat, finans, skattekostnad, aarsresultat), balanse (eiendeler, egenkapital og gjeld), each line {code, description, amount, accounts}; ' +
      'accounts without a code in unmapped_accounts; checks (balanse balanserer, every account mapped, equity not negative). Amounts are decimal strings to the øre.',
    document: /* GraphQL */ `
      query PreviewTaxReturn($clientAccountId: Int!, $reportingYear: Int!, $fromDate: Date, $toDate: Date) {
        taxReturnPreview(clientAccountId: $clientAccountId, reportingYear: $reportingYear, fromDate: $fromDate, toDate: $toDate) { ${PREVIEW_FIELDS} }
      }`,
  },
  {
    method: 'GET',
    path: '/tax-returns/:id',
    summary: 'Get one tax return; with=created_by; with_net_wealth=true adds net_wealth {assets, debts, total_assets, total_debts, net_wealth} from the return’s balance sheet (null without readable data).',
    document: /* GraphQL */ `
      query GetTaxReturn($id: Int!, $withNetWealth: Boolean = false) { taxReturn(id: $id) { ...TaxReturnFields ${NET_WEALTH} } }
      ${TAX_RETURN_FIELDS}`,
    with: WITH,
  },
  {
    method: 'GET',
    path: '/tax-returns/:id/status',
    summary: 'The tax return with its status, refreshed from the portal first when it is SUBMITTED with a portal instance id (APPROVED, REJECTED with the reason in error_message); 500 when the portal cannot be read (nothing changes).',
    document: /* GraphQL */ `
      query GetTaxReturnStatus($id: Int!) { taxReturnStatus(id: $id) { ...TaxReturnFields } }
      ${TAX_RETURN_FIELDS}`,
    with: WITH,
  },
  {
    method: 'POST',
    path: '/tax-returns/:year/fetch-prefilled',
    summary:
      'The tax authority’s pre-filled data for client_account_id (query, required) and the year: {org_number, income_year, bank_accounts [{bank_name, account_number, deposit_dec31, interest_earned}], ' +
      'loans [{lender, balance_dec31, interest_paid}], properties [{property_id, municipality, address, property_type, tax_value}], loss_carried_forward, reported_at}. ' +
      '400 without an organization number, 404 when the authority has none for the year, 500 when it cannot be reached.',
    document: /* GraphQL */ `
      mutation FetchPrefilledTaxData($clientAccountId: Int!, $year: Int!) { fetchPrefilledTaxData(clientAccountId: $clientAccountId, year: $year) }`,
    queryParameters: ['client_account_id'],
  },
  {
    method: 'POST',
    path: '/tax-returns/:year/validate',
    summary:
      'The tax authority’s validation of the næringsspesifikasjon computed from the ledger (body client_account_id, required; query from_date, to_date): {valid, errors: [{severity, code, message, path}], warnings: [...]}. ' +
      'Errors: BALANCE_MISMATCH, UNMAPPED_ACCOUNTS, RESULT_MISMATCH, SECTION_SUM, WRONG_YEAR, MALFORMED; warnings: NEGATIVE_EQUITY, EMPTY.',
    document: /* GraphQL */ `
      mutation ValidateTaxReturn($clientAccountId: Int!, $year: Int!, $fromDate: Date, $toDate: Date) {
        validateTaxReturn(clientAccountId: $clientAccountId, year: $year, fromDate: $fromDate, toDate: $toDate) { valid errors { ${FINDING} } warnings { ${FINDING} } }
      }`,
    queryParameters: ['from_date', 'to_date'],
  },
  {
    method: 'POST',
    path: '/tax-returns',
    summary:
      'Submit the næringsspesifikasjon computed from the ledger through the portal: client_account_id and reporting_year required; from_date, to_date (default 1 January, 31 December); ignore_warnings (default true); ' +
      'innsendingsformaal egenfastsetting (default, an original: 400 when the year already has a SUBMITTED or APPROVED return) or endringsanmodning (a correction of the filed, assessed return, referenced automatically: 400 when there is none). ' +
      'The account needs an organization number (400). Answers the tax return, SUBMITTED (its receipt PDF stored as a voucher) or DRAFT (error_message) by the portal’s answer.',
    document: /* GraphQL */ `
      mutation SubmitTaxReturn($input: SubmitTaxReturnInput!) { submitTaxReturn(input: $input) { ...TaxReturnFields } }
      ${TAX_RETURN_FIELDS}`,
    with: WITH,
    status: 201,
  },
  {
    method: 'POST',
    path: '/tax-returns/import',
    summary:
      'Import earlier tax-return filings from the portal: client_account_id (required), year (optional), dry_run (default false), auth (service: the service’s portal credentials; maskinporten: as the account’s Active system user with the right govportal:filings.read, none: 403; auto, the default: the system user when there is one, else the service). ' +
      'Answers {imported: [{year, portal_instance_id, seeded, warning, dry_run, tax_return_id}], skipped: [{year, portal_instance_id}], errors: [{portal_instance_id, reason}]}; imported returns get status IMPORTED.',
    document: /* GraphQL */ `
      mutation ImportTaxReturns($input: ImportTaxReturnsInput!) {
        importTaxReturns(input: $input) {
          imported { year portal_instance_id: portalInstanceId seeded warning dry_run: dryRun tax_return_id: taxReturnId }
          skipped { year portal_instance_id: portalInstanceId }
          errors { portal_instance_id: portalInstanceId reason }
        }
      }`,
  },
  {
    method: 'POST',
    path: '/tax-returns/:id/cancel',
    summary: 'Cancel a DRAFT or SUBMITTED tax return (at the portal too); any other status: 400 {error, status: 400}.',
    document: /* GraphQL */ `
      mutation CancelTaxReturn($id: Int!) { cancelTaxReturn(id: $id) { ...TaxReturnFields } }
      ${TAX_RETURN_FIELDS}`,
    with: WITH,
  },
]);
