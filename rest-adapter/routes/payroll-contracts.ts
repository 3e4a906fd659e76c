import { defineOperations } from '../operation.ts';

// spec 002 "Payroll contracts": GET/POST /payroll/contracts, GET and POST or PUT /payroll/contracts/{id}.
// The fields are the spec's "Employment contract"; GraphQL also has the tax card and the report of
// the employment's end (PayrollContract.taxCard, employmentEndReport*).
const CONTRACT_FIELDS = /* GraphQL */ `
  fragment PayrollContractFields on PayrollContract {
    id
    business_partner_id: businessPartnerId
    client_account_id: clientAccountId
    employment_type: employmentType
    start_date: startDate
    end_date: endDate
    end_date_reason: endDateReason
    job_title: jobTitle
    occupation_code: occupationCode
    employment_form: employmentForm
    work_time_arrangement: workTimeArrangement
    work_percentage: workPercentage
    weekly_hours: weeklyHours
    remuneration_type: remunerationType
    salary_type: salaryType
    last_salary_change_date: lastSalaryChangeDate
    last_work_pct_change_date: lastWorkPctChangeDate
    monthly_salary: monthlySalary
    hourly_rate: hourlyRate
    vacation_pay_rate: vacationPayRate
    pension_rate: pensionRate
    employee_pension_rate: employeePensionRate
    pension_provider_id: pensionProviderId
    union_dues_amount: unionDuesAmount
    car_registration_number: carRegistrationNumber
    car_list_price: carListPrice
    arbeidsforhold_id: arbeidsforholdId
    is_primary_employer: isPrimaryEmployer
    is_active: isActive
    is_payroll_default: isPayrollDefault
    created_by_id: createdById
    created_at: createdAt
    business_partner: businessPartner @include(if: $with_business_partner) {
      id
      name
      email
      is_employee: isEmployee
      is_active: isActive
    }
  }`;

const WITH = { allowed: ['business_partner'] } as const;

const UPDATE_SUMMARY =
  'Update an employment contract: only the fields sent change (null clears an optional field); client_account_id and business_partner_id cannot change (400). is_active true marks the business partner as an employee; false → true queues a tax-card fetch; true → false reports the end of the employment to the tax authority with end_date (sent or stored; else today, which is stored).';

const UPDATE_DOCUMENT = (name: string) => /* GraphQL */ `
  mutation ${name}($id: Int!, $input: UpdatePayrollContractInput!) { updatePayrollContract(id: $id, input: $input) { ...PayrollContractFields } }
  ${CONTRACT_FIELDS}`;

export const payrollContractOperations = defineOperations([
  {
    method: 'GET',
    path: '/payroll/contracts',
    summary: 'List the employment contracts of a client account, by employee and active state, paged (per_page 100).',
    document: /* GraphQL */ `
      query ListPayrollContracts($clientAccountId: Int!, $businessPartnerId: Int, $isActive: Boolean, $page: Int, $perPage: Int) {
        payrollContracts(clientAccountId: $clientAccountId, businessPartnerId: $businessPartnerId, isActive: $isActive, page: $page, perPage: $perPage) {
          data: nodes { ...PayrollContractFields }
          meta { page pages per_page: perPage records }
        }
      }
      ${CONTRACT_FIELDS}`,
    with: WITH,
  },
  {
    method: 'GET',
    path: '/payroll/contracts/:id',
    summary: 'Get one employment contract.',
    document: /* GraphQL */ `
      query GetPayrollContract($id: Int!) { payrollContract(id: $id) { ...PayrollContractFields } }
      ${CONTRACT_FIELDS}`,
    with: WITH,
  },
  {
    method: 'POST',
    path: '/payroll/contracts',
    summary:
      'Create an employment contract for a business partner of the account (the employee; an active contract marks it is_employee): employment_type, start_date and salary_type required, monthly_salary for MONTHLY_FIXED, hourly_rate for HOURLY; arbeidsforhold_id generated. Queues a background fetch of the tax card for the current tax year.',
    document: /* GraphQL */ `
      mutation CreatePayrollContract($input: CreatePayrollContractInput!) { createPayrollContract(input: $input) { ...PayrollContractFields } }
      ${CONTRACT_FIELDS}`,
    status: 201,
    with: WITH,
  },
  {
    method: 'PUT',
    path: '/payroll/contracts/:id',
    summary: UPDATE_SUMMARY,
    document: UPDATE_DOCUMENT('UpdatePayrollContract'),
    with: WITH,
  },
  {
    // the spec's "POST or PUT /payroll/contracts/{id}": the same update (its MCP tool needs a name of its own)
    method: 'POST',
    path: '/payroll/contracts/:id',
    summary: `${UPDATE_SUMMARY} (POST form of PUT /payroll/contracts/{id}.)`,
    document: UPDATE_DOCUMENT('UpdatePayrollContractByPost'),
    updates: true,
    with: WITH,
  },
]);
