import { FILE_LIMITS_DESCRIPTION, MAX_UPLOAD_BYTES } from '../../src/modules/files/files.rules.ts';
import { defineOperations, HEAVY_WEIGHT } from '../operation.ts';

/**
 * A file as the REST paths show it. `voucher_id` is the voucher the file is attached to (an
 * ATTACHMENT); `created_voucher_id` and `created_voucher` the voucher an upload of type VOUCHER made,
 * whose own file this is (null otherwise).
 */
export const FILE_FIELDS = /* GraphQL */ `
  fragment FileFields on File {
    id
    client_account_id: clientAccountId
    type
    file_name: fileName
    content_type: contentType
    size
    page_count: pageCount
    voucher_id: voucherId
    document_id: documentId
    created_voucher_id: createdVoucherId
    created_voucher: createdVoucher { id status workflow_status: workflowStatus workflow_error: workflowError }
    created_at: createdAt
    created_by_id: createdById
    download_url: downloadUrl
    original_url: originalUrl
    preview_url: previewUrl
    thumbnail_url: thumbnailUrl
    page_images: pageImages { page_number: pageNumber preview_url: previewUrl }
  }`;

export const fileOperations = defineOperations([
  {
    method: 'POST',
    path: '/files',
    summary:
      'Upload a file (multipart/form-data: the file in `file`, with `type` and `client_account_id`; `voucher_id` for an ATTACHMENT). ' +
      `At most ${MAX_UPLOAD_BYTES} bytes (25 MB; larger is 413). What the file is comes from its bytes, never the part's Content-Type: ` +
      'VOUCHER and CHAT_ATTACHMENT take PDF, JPEG, PNG, HEIC/HEIF and WebP; ATTACHMENT also XML, CSV, plain text and office files; anything else, ' +
      `an encrypted or unreadable PDF, is 400. ${FILE_LIMITS_DESCRIPTION} ` +
      'A VOUCHER upload creates a voucher (`created_voucher`: status PENDING, workflow_status IMAGE_PROCESSING) ' +
      'and starts its pipeline. The URLs are presigned for one hour. A JSON body with the file as `content_base64` and a `file_name` is taken too ' +
      '(within the 1 MB JSON limit), as is the MCP tool upload_file.',
    document: /* GraphQL */ `
      mutation UploadFile($clientAccountId: Int!, $type: FileType!, $fileName: String!, $contentBase64: FileContent!, $voucherId: Int) {
        uploadFile(clientAccountId: $clientAccountId, type: $type, fileName: $fileName, contentBase64: $contentBase64, voucherId: $voucherId) { ...FileFields }
      }
      ${FILE_FIELDS}`,
    status: 201,
    tenantParameter: 'client_account_id',
    multipart: { fileField: 'file', contentField: 'content_base64', fileNameField: 'file_name', maxBytes: MAX_UPLOAD_BYTES },
    // storing the file and reading what it is (a PDF's pages) happen in the request
    weight: HEAVY_WEIGHT,
  },
]);
