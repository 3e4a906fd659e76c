import { defineOperations } from '../operation.ts';
import { CLIENT_ACCOUNT_SUMMARY_FIELDS } from './client-accounts.ts';

// spec 001, "Departments": GET/POST /departments, GET/PUT/POST/DELETE /departments/{id}
const DEPARTMENT_FIELDS = /* GraphQL */ `
  fragment DepartmentFields on Department {
    id
    client_account_id: clientAccountId
    name
    sequence_number: sequenceNumber
    is_active: isActive
    autonomy_level: autonomyLevel
    created_at: createdAt
    created_by_id: createdById
    updated_at: updatedAt
    updated_by_id: updatedById
    client_account: clientAccount @include(if: $with_client_account) { ...ClientAccountSummaryFields }
  }
  ${CLIENT_ACCOUNT_SUMMARY_FIELDS}`;

const WITH = { allowed: ['client_account'] } as const;

const UPDATE_SUMMARY = 'Update a department: only the fields sent change; client_account_id cannot change; is_active false deactivates as DELETE does, true reactivates.';

export const departmentOperations = defineOperations([
  {
    method: 'GET',
    path: '/departments',
    summary: 'List the departments of a client account (active only unless is_active says otherwise; null lists all), paged.',
    document: /* GraphQL */ `
      query ListDepartments($clientAccountId: Int!, $isActive: Boolean, $page: Int, $perPage: Int) {
        departments(clientAccountId: $clientAccountId, isActive: $isActive, page: $page, perPage: $perPage) {
          data: nodes { ...DepartmentFields }
          meta { page pages per_page: perPage records }
        }
      }
      ${DEPARTMENT_FIELDS}`,
    with: WITH,
  },
  {
    method: 'GET',
    path: '/departments/:id',
    summary: 'Get one department.',
    document: /* GraphQL */ `
      query GetDepartment($id: Int!) { department(id: $id) { ...DepartmentFields } }
      ${DEPARTMENT_FIELDS}`,
    with: WITH,
  },
  {
    method: 'POST',
    path: '/departments',
    summary: 'Create a department in a client account; its sequence number is assigned.',
    document: /* GraphQL */ `
      mutation CreateDepartment($input: CreateDepartmentInput!) { createDepartment(input: $input) { ...DepartmentFields } }
      ${DEPARTMENT_FIELDS}`,
    status: 201,
    with: WITH,
  },
  {
    method: 'PUT',
    path: '/departments/:id',
    summary: UPDATE_SUMMARY,
    document: /* GraphQL */ `
      mutation UpdateDepartment($id: Int!, $input: UpdateDepartmentInput!) { updateDepartment(id: $id, input: $input) { ...DepartmentFields } }
      ${DEPARTMENT_FIELDS}`,
    with: WITH,
  },
  {
    // the spec's "PUT or POST /departments/{id}": the same update (its MCP tool needs a name of its own)
    method: 'POST',
    path: '/departments/:id',
    summary: `${UPDATE_SUMMARY} (POST form of PUT /departments/{id}.)`,
    document: /* GraphQL */ `
      mutation UpdateDepartmentByPost($id: Int!, $input: UpdateDepartmentInput!) { updateDepartment(id: $id, input: $input) { ...DepartmentFields } }
      ${DEPARTMENT_FIELDS}`,
    updates: true,
    with: WITH,
  },
  {
    method: 'DELETE',
    path: '/departments/:id',
    summary:
      'Delete a department: it is deactivated (is_active false) and kept; 400 listing account codes and balances while an account with a mandatory department dimension has a non-zero balance for it.',
    document: /* GraphQL */ `
      mutation DeactivateDepartment($id: Int!) { deactivateDepartment(id: $id) { ...DepartmentFields } }
      ${DEPARTMENT_FIELDS}`,
    with: WITH,
  },
]);
