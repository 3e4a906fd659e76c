import { defineOperations } from '../operation.ts';
import { VOUCHER_SCALAR_FIELDS } from './vouchers.ts';

// spec 001, "Voucher collections": GET /voucher-collections, POST /voucher-collections, PUT /voucher-collections/{id}
const COLLECTION_FIELDS = /* GraphQL */ `
  fragment VoucherCollectionFields on VoucherCollection {
    id
    created_at: createdAt
    created_by_id: createdById
    updated_at: updatedAt
    updated_by_id: updatedById
    client_account_id: clientAccountId
    name
    description
    vouchers @include(if: $with_vouchers) { ...VoucherScalarFields }
  }
  ${VOUCHER_SCALAR_FIELDS}`;

const WITH = { allowed: ['vouchers'] } as const;

export const voucherCollectionOperations = defineOperations([
  {
    method: 'GET',
    path: '/voucher-collections',
    summary: 'List the voucher collections of a client account, newest first (page, per_page); with=vouchers embeds their vouchers.',
    document: /* GraphQL */ `
      query ListVoucherCollections($clientAccountId: Int!, $page: Int, $perPage: Int) {
        voucherCollections(clientAccountId: $clientAccountId, page: $page, perPage: $perPage) {
          data: nodes { ...VoucherCollectionFields }
          meta { records per_page: perPage page pages }
        }
      }
      ${COLLECTION_FIELDS}`,
    with: WITH,
  },
  {
    method: 'POST',
    path: '/voucher-collections',
    summary: 'Create a voucher collection (client_account_id required; name at most 150, description at most 1000 characters). 201 with the collection.',
    document: /* GraphQL */ `
      mutation CreateVoucherCollection($input: CreateVoucherCollectionInput!) { createVoucherCollection(input: $input) { ...VoucherCollectionFields } }
      ${COLLECTION_FIELDS}`,
    status: 201,
    with: WITH,
  },
  {
    method: 'PUT',
    path: '/voucher-collections/:id',
    summary: 'Update the name and description of a voucher collection; client_account_id cannot change (400).',
    document: /* GraphQL */ `
      mutation UpdateVoucherCollection($id: Int!, $input: UpdateVoucherCollectionInput!) { updateVoucherCollection(id: $id, input: $input) { ...VoucherCollectionFields } }
      ${COLLECTION_FIELDS}`,
    with: WITH,
  },
]);
