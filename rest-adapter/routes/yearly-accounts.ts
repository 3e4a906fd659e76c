import { base64Pdf, defineOperations } from '../operation.ts';
import { ENTRY_FIELDS, ONE_WITH } from './journal-entries.ts';

// spec 002, "Yearly accounts": preview, submissions (list, one, drafts, direct submission, submit,
// cancel, PDF, notes GET/PUT) and annual allocations. Resource: "Yearly account submission".

const SUBMISSION_FIELDS = /* GraphQL */ `
  fragment YearlyAccountSubmissionFields on YearlyAccountSubmission {
    id
    client_account_id: clientAccountId
    reporting_year: reportingYear
    from_date: fromDate
    to_date: toDate
    status
    portal_instance_id: portalInstanceId
    main_form_id: mainFormId
    sub_form_id: subFormId
    submitted_at: submittedAt
    error_message: errorMessage
    created_at: createdAt
    created_by_id: createdById
    updated_at: updatedAt
  }`;

const NOTE_FIELDS = /* GraphQL */ `
  fragment YearlyAccountNoteFields on YearlyAccountNote {
    note_number: noteNumber
    key
    title
    body_type: bodyType
    body
    footer_text: footerText
  }`;

const FIGURE_FIELDS = /* GraphQL */ `
  fragment YearlyAccountFigureFields on YearlyAccountFigure { key label amount previous_amount: previousAmount is_sum: isSum }`;

const STATES =
  'Statuses: DRAFT (POST /drafts, notes generated), SUBMITTED (submit or POST /submissions), APPROVED or REJECTED (the portal’s assessment, read when one submission is fetched), CANCELLED (cancel from DRAFT or SUBMITTED).';

/** GET …/pdf answers the PDF itself (no JSON); the GraphQL field carries it base64. */
const pdf = base64Pdf('The yearly accounts (årsregnskap) as an attachment arsregnskap-{year}-{organization number}.pdf: front page, income statement down to årsresultat and its allocation, balance sheet by line items (both with the previous year), the notes; org.nr. and dates as Norwegians write them.');

export const yearlyAccountOperations = defineOperations([
  {
    method: 'GET',
    path: '/yearly-accounts/preview',
    summary:
      'Preview the yearly accounts of a client account (client_account_id and reporting_year required; from_date/to_date default to the calendar year) from the posted ledger: ' +
      'the small-enterprise income statement down to årsresultat and its allocation (overføringer og disponeringer, 88–89) and the balance sheet by line items (NS 4102 ranges) with the section sums (is_sum), each line with the previous year’s figure (decimal strings), ' +
      'the checks (the balance sheet balances, equity not negative, the result allocated by a closing entry) and the notes a draft would get.',
    document: /* GraphQL */ `
      query PreviewYearlyAccounts($clientAccountId: Int!, $reportingYear: Int!, $fromDate: Date, $toDate: Date) {
        yearlyAccountPreview(clientAccountId: $clientAccountId, reportingYear: $reportingYear, fromDate: $fromDate, toDate: $toDate) {
          client_account_id: clientAccountId
          reporting_year: reportingYear
          from_date: fromDate
          to_date: toDate
          income_statement: incomeStatement { ...YearlyAccountFigureFields }
          balance_sheet: balanceSheet { ...YearlyAccountFigureFields }
          checks { key passed severity message }
          notes { ...YearlyAccountNoteFields }
        }
      }
      ${FIGURE_FIELDS}
      ${NOTE_FIELDS}`,
  },
  {
    method: 'GET',
    path: '/yearly-accounts/submissions',
    summary:
      'List yearly account submissions: client_account_id (one or a list; default every account you can access), reporting_year, status, order_by (default -reporting_year), page (1), page_size (100, at most 1000). ' + STATES,
    document: /* GraphQL */ `
      query ListYearlyAccountSubmissions($clientAccountId: [Int!], $reportingYear: Int, $status: [YearlyAccountStatus!], $orderBy: [String!], $page: Int, $pageSize: Int) {
        yearlyAccountSubmissions(clientAccountId: $clientAccountId, reportingYear: $reportingYear, status: $status, orderBy: $orderBy, page: $page, pageSize: $pageSize) {
          data: nodes { ...YearlyAccountSubmissionFields }
          meta { page pages per_page: perPage records }
        }
      }
      ${SUBMISSION_FIELDS}`,
  },
  {
    method: 'GET',
    path: '/yearly-accounts/submissions/:id',
    summary: 'Get one yearly account submission; a SUBMITTED one is refreshed from the portal first (APPROVED, or REJECTED with error_message).',
    document: /* GraphQL */ `
      query GetYearlyAccountSubmission($id: Int!) { yearlyAccountSubmission(id: $id) { ...YearlyAccountSubmissionFields } }
      ${SUBMISSION_FIELDS}`,
  },
  {
    method: 'POST',
    path: '/yearly-accounts/drafts',
    summary:
      'Create a DRAFT yearly account (client_account_id and reporting_year required; from_date/to_date default to the calendar year) with notes generated from the ledger. ' +
      'An open (DRAFT, SUBMITTED or APPROVED) submission for the same account and year: 400.',
    document: /* GraphQL */ `
      mutation CreateYearlyAccountDraft($input: CreateYearlyAccountInput!) { createYearlyAccountDraft(input: $input) { ...YearlyAccountSubmissionFields } }
      ${SUBMISSION_FIELDS}`,
    status: 201,
  },
  {
    method: 'POST',
    path: '/yearly-accounts/submissions',
    summary:
      'Submit a yearly account directly (same body as /drafts): filed with the portal with the generated notes, SUBMITTED. Needs the account’s organization number (400); ' +
      'the portal’s error findings are a 400 and nothing is stored; an open submission for the year: 400; the portal failing: 500.',
    document: /* GraphQL */ `
      mutation CreateYearlyAccountSubmission($input: CreateYearlyAccountInput!) { createYearlyAccountSubmission(input: $input) { ...YearlyAccountSubmissionFields } }
      ${SUBMISSION_FIELDS}`,
    status: 201,
  },
  {
    method: 'POST',
    path: '/yearly-accounts/submissions/:id/submit',
    summary: 'Submit a DRAFT (else 400) to the portal with its notes (as edited, or generated): SUBMITTED. The portal’s error findings are a 400 and it stays a DRAFT.',
    document: /* GraphQL */ `
      mutation SubmitYearlyAccount($id: Int!) { submitYearlyAccount(id: $id) { ...YearlyAccountSubmissionFields } }
      ${SUBMISSION_FIELDS}`,
  },
  {
    method: 'POST',
    path: '/yearly-accounts/submissions/:id/cancel',
    summary: 'Cancel a DRAFT or SUBMITTED yearly account (else 400), at the portal too when it has an instance: CANCELLED.',
    document: /* GraphQL */ `
      mutation CancelYearlyAccount($id: Int!) { cancelYearlyAccount(id: $id) { ...YearlyAccountSubmissionFields } }
      ${SUBMISSION_FIELDS}`,
  },
  {
    method: 'GET',
    path: '/yearly-accounts/submissions/:id/pdf',
    summary: 'The yearly accounts PDF (application/pdf attachment arsregnskap-{year}-{organization number}.pdf): front page, income statement, balance sheet, notes.',
    document: /* GraphQL */ `
      query GetYearlyAccountPdf($id: Int!) { yearlyAccountPdf(id: $id) { file_name: fileName content_type: contentType content_base64: contentBase64 } }`,
    representations: pdf,
  },
  {
    method: 'GET',
    path: '/yearly-accounts/submissions/:id/notes',
    summary: 'The notes of a yearly account (array): as stored when edited, else generated from the ledger. Note: {note_number, key, title, body_type text|table, body (string or {columns, rows}), footer_text}.',
    document: /* GraphQL */ `
      query GetYearlyAccountNotes($id: Int!) { yearlyAccountNotes(id: $id) { ...YearlyAccountNoteFields } }
      ${NOTE_FIELDS}`,
  },
  {
    method: 'PUT',
    path: '/yearly-accounts/submissions/:id/notes',
    summary:
      'Replace the notes of a DRAFT (else 400). Body: an array of notes {note_number, key, title, body_type text|table, body: a string or {columns: [string], rows: [[string]]}, footer_text (optional)}; ' +
      'note numbers and keys unique; a bad note is a 400 naming its field.',
    document: /* GraphQL */ `
      mutation UpdateYearlyAccountNotes($id: Int!, $notes: [YearlyAccountNoteInput!]!) { updateYearlyAccountNotes(id: $id, notes: $notes) { ...YearlyAccountNoteFields } }
      ${NOTE_FIELDS}`,
    destructive: true,
  },
  {
    method: 'POST',
    path: '/yearly-accounts/annual-allocations',
    summary:
      'Post the year’s closing entry (disponering av årsresultat): client_account_id, reporting_year, lines (at least 2, balanced, each account_code, debit, credit: one of them non-zero) required; ' +
      'description default "Årsavslutning {year}: disponering av årsresultat". Dated 31 December of the year, posted through the ledger; answers the journal entry with its lines.',
    document: /* GraphQL */ `
      mutation CreateAnnualAllocation($input: CreateAnnualAllocationInput!) { createAnnualAllocation(input: $input) { ...JournalEntryFields } }
      ${ENTRY_FIELDS}`,
    with: ONE_WITH,
    status: 201,
  },
]);
