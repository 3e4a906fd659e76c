import { defineOperations } from '../operation.ts';
import { MAX_SAFT_UPLOAD_BYTES } from '../../src/modules/saft-imports/saft-imports.rules.ts';
import { MAX_SAFT_XML_BYTES } from '../../src/modules/saft-imports/saft-file.ts';

// Issue 33 (beyond the spec): SAF-T Financial import. POST /saft-imports (multipart), GET one, GET the list.

const SAFT_IMPORT_FIELDS = /* GraphQL */ `
  fragment SaftImportFields on SaftImport {
    id
    client_account_id: clientAccountId
    status
    file_name: fileName
    file_hash: fileHash
    dry_run: dryRun
    allow_other_organization: allowOtherOrganization
    progress { processed total }
    summary
    errors { message status }
    created_at: createdAt
    finished_at: finishedAt
  }`;

export const saftImportOperations = defineOperations([
  {
    method: 'POST',
    path: '/saft-imports',
    summary:
      'Import a SAF-T Financial 1.30 file into a client account (multipart/form-data: the file in `file` (XML, or a ZIP holding one), `client_account_id`, optional `dry_run` and `allow_other_organization`). ' +
      `At most ${MAX_SAFT_UPLOAD_BYTES} bytes (413 beyond), the XML (inside a ZIP: inflated) at most ${MAX_SAFT_XML_BYTES} by default (SAFT_IMPORT_MAX_XML_MB; 400 beyond). The whole file is checked before the answer: against the official 1.30 XSD, then totals, balanced transactions and references (400 listing the problems), ` +
      'the company’s organisation number against the account’s (400 naming both, unless allow_other_organization=true), a file imported before (same SHA-256: 409) and posted entries of the account in the file’s period (409); nothing is written then. ' +
      'Otherwise 202 {id, status: QUEUED}: a job maps it all or nothing (GET /saft-imports/{id}). dry_run=true maps and checks every rule but writes no books. The account’s managers (CA, AA, BK) only.',
    document: /* GraphQL */ `
      mutation ImportSaftFile($clientAccountId: Int!, $fileName: String!, $contentBase64: FileContent!, $dryRun: Boolean, $allowOtherOrganization: Boolean) {
        importSaftFile(clientAccountId: $clientAccountId, fileName: $fileName, contentBase64: $contentBase64, dryRun: $dryRun, allowOtherOrganization: $allowOtherOrganization) { id status }
      }`,
    status: 202,
    tenantParameter: 'client_account_id',
    multipart: { fileField: 'file', contentField: 'content_base64', fileNameField: 'file_name', maxBytes: MAX_SAFT_UPLOAD_BYTES, toDisk: true },
  },
  {
    method: 'GET',
    path: '/saft-imports/:id',
    summary:
      'One SAF-T import: status (QUEUED, RUNNING, COMPLETED, FAILED), progress {processed, total} (transactions), summary (what was written, or would be in a dry run) and errors (each with where and 400/409).',
    document: /* GraphQL */ `
      query GetSaftImport($id: Int!) { saftImport(id: $id) { ...SaftImportFields } }
      ${SAFT_IMPORT_FIELDS}`,
  },
  {
    method: 'GET',
    path: '/saft-imports',
    summary: 'The SAF-T imports of a client account, newest first.',
    document: /* GraphQL */ `
      query ListSaftImports($clientAccountId: Int!, $page: Int, $perPage: Int) {
        saftImports(clientAccountId: $clientAccountId, page: $page, perPage: $perPage) {
          data: nodes { ...SaftImportFields }
          meta { page pages per_page: perPage records }
        }
      }
      ${SAFT_IMPORT_FIELDS}`,
    tenantParameter: 'client_account_id',
  },
]);
