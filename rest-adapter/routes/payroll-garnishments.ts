import { defineOperations } from '../operation.ts';

// spec 002 "Garnishment (read-only)" and "Payroll garnishments": list (ordered by priority then id,
// the page envelope), one, and the fetch from the tax authority (202 {message}). No create, update
// or delete: garnishments are written only by the fetch job.
const GARNISHMENT_FIELDS = /* GraphQL */ `
  fragment PayrollGarnishmentFields on PayrollGarnishment {
    id
    created_by_id: createdById
    created_at: createdAt
    business_partner_id: businessPartnerId
    client_account_id: clientAccountId
    external_id: externalId
    garnishment_type: garnishmentType
    deduction_type: deductionType
    amount
    percentage
    priority
    creditor_id: creditorId
    creditor_bank_account_id: creditorBankAccountId
    payment_reference: paymentReference
    valid_from: validFrom
    valid_to: validTo
    status
    case_number: caseNumber
    external_version: externalVersion
    sequence_number: sequenceNumber
    raw_response: rawResponse
  }`;

const STATUSES = 'status ACTIVE, EXPIRED (valid_to passed) or CANCELLED (the tax authority no longer lists the order)';

export const payrollGarnishmentOperations = defineOperations([
  {
    method: 'GET',
    path: '/payroll/garnishments',
    summary:
      `List the garnishments of a client account (client_account_id required), filtered by business_partner_id (the employee) and ${STATUSES}; ` +
      'ordered by priority (lower is deducted first) then id; page (1), per_page (100, at most 100).',
    document: /* GraphQL */ `
      query ListPayrollGarnishments($clientAccountId: Int!, $businessPartnerId: Int, $status: GarnishmentStatus, $page: Int, $perPage: Int) {
        payrollGarnishments(clientAccountId: $clientAccountId, businessPartnerId: $businessPartnerId, status: $status, page: $page, perPage: $perPage) {
          data: nodes { ...PayrollGarnishmentFields }
          meta { page pages per_page: perPage records }
        }
      }
      ${GARNISHMENT_FIELDS}`,
  },
  {
    method: 'GET',
    path: '/payroll/garnishments/:id',
    summary: 'Get one garnishment: amount (FIXED, per pay period) or percentage (PERCENTAGE, of net pay), priority, creditor, validity, status, raw_response (the order as the tax authority sent it).',
    document: /* GraphQL */ `
      query GetPayrollGarnishment($id: Int!) { payrollGarnishment(id: $id) { ...PayrollGarnishmentFields } }
      ${GARNISHMENT_FIELDS}`,
  },
  {
    method: 'POST',
    path: '/payroll/garnishments/fetch',
    summary:
      'Queue a fetch of the client account’s garnishment orders from the tax authority (body client_account_id, required; the account needs an organization number): 202 {message}. ' +
      'The job creates and updates garnishments of the employees (business partners with is_employee, matched by national_id_number) by external_id; a newer external_version wins; orders no longer listed become CANCELLED.',
    document: /* GraphQL */ `
      mutation FetchPayrollGarnishments($clientAccountId: Int!) { fetchPayrollGarnishments(clientAccountId: $clientAccountId) { message } }`,
    status: 202,
  },
]);
