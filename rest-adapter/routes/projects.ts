import { defineOperations } from '../operation.ts';
import { CLIENT_ACCOUNT_SUMMARY_FIELDS } from './client-accounts.ts';
import { JOURNAL_ENTRY_SCALAR_FIELDS } from './journal-entries.ts';

// spec 001, "Projects": GET/POST /projects, GET/PUT/DELETE /projects/{id}
const PROJECT_FIELDS = /* GraphQL */ `
  fragment ProjectFields on Project {
    id
    client_account_id: clientAccountId
    sequence_number: sequenceNumber
    name
    description
    is_active: isActive
    created_at: createdAt
    created_by_id: createdById
    updated_at: updatedAt
    updated_by_id: updatedById
    client_account: clientAccount @include(if: $with_client_account) { ...ClientAccountSummaryFields }
    journal_entries: journalEntries @include(if: $with_journal_entries) { ...JournalEntryScalarFields }
  }
  ${CLIENT_ACCOUNT_SUMMARY_FIELDS}
  ${JOURNAL_ENTRY_SCALAR_FIELDS}`;

const WITH = { allowed: ['client_account', 'journal_entries'] } as const;

export const projectOperations = defineOperations([
  {
    method: 'GET',
    path: '/projects',
    summary: 'List the projects of a client account (active only unless is_active says otherwise), searched by name, paged.',
    document: /* GraphQL */ `
      query ListProjects($clientAccountId: Int!, $isActive: Boolean, $name: String, $page: Int, $perPage: Int) {
        projects(clientAccountId: $clientAccountId, isActive: $isActive, name: $name, page: $page, perPage: $perPage) {
          data: nodes { ...ProjectFields }
          meta { page pages per_page: perPage records }
        }
      }
      ${PROJECT_FIELDS}`,
    with: WITH,
  },
  {
    method: 'GET',
    path: '/projects/:id',
    summary: 'Get one project.',
    document: /* GraphQL */ `
      query GetProject($id: Int!) { project(id: $id) { ...ProjectFields } }
      ${PROJECT_FIELDS}`,
    with: WITH,
  },
  {
    method: 'POST',
    path: '/projects',
    summary: 'Create a project in a client account; its sequence number is assigned and its name must be unique in the account.',
    document: /* GraphQL */ `
      mutation CreateProject($input: CreateProjectInput!) { createProject(input: $input) { ...ProjectFields } }
      ${PROJECT_FIELDS}`,
    status: 201,
    with: WITH,
  },
  {
    method: 'PUT',
    path: '/projects/:id',
    summary: 'Update a project: only the fields sent change; client_account_id cannot change; is_active false deactivates as DELETE does.',
    document: /* GraphQL */ `
      mutation UpdateProject($id: Int!, $input: UpdateProjectInput!) { updateProject(id: $id, input: $input) { ...ProjectFields } }
      ${PROJECT_FIELDS}`,
    with: WITH,
  },
  {
    method: 'DELETE',
    path: '/projects/:id',
    summary:
      'Delete a project: it is deactivated (is_active false) and kept; 400 listing account codes and balances while an account with a mandatory project dimension has a non-zero balance for it.',
    document: /* GraphQL */ `
      mutation DeactivateProject($id: Int!) { deactivateProject(id: $id) { ...ProjectFields } }
      ${PROJECT_FIELDS}`,
    with: WITH,
  },
]);
