import { defineOperations } from '../operation.ts';
import { UNIT_FIELDS } from './units.ts';
import { TAX_CODE_FIELDS } from './tax-codes.ts';

// spec 001, "Items and units": GET/POST /items, GET/PUT/DELETE /items/{id}
/** An item's own fields, without relations: also embedded by item collection entries. */
export const ITEM_SCALAR_FIELDS = /* GraphQL */ `
  fragment ItemScalarFields on Item {
    id
    client_account_id: clientAccountId
    item_no: itemNo
    name
    item_type: itemType
    sales_unit_id: salesUnitId
    stock_unit_id: stockUnitId
    tax_code_id: taxCodeId
    price
    metadata
    is_active: isActive
    autonomy_level: autonomyLevel
    created_at: createdAt
    created_by_id: createdById
    updated_at: updatedAt
    updated_by_id: updatedById
  }`;

const ITEM_FIELDS = /* GraphQL */ `
  fragment ItemFields on Item {
    ...ItemScalarFields
    sales_unit: salesUnit @include(if: $with_sales_unit) { ...UnitFields }
    stock_unit: stockUnit @include(if: $with_stock_unit) { ...UnitFields }
    tax_code: taxCode @include(if: $with_tax_code) { ...TaxCodeFields }
  }
  ${ITEM_SCALAR_FIELDS}
  ${UNIT_FIELDS}
  ${TAX_CODE_FIELDS}`;

const WITH = { allowed: ['sales_unit', 'stock_unit', 'tax_code'] } as const;

export const itemOperations = defineOperations([
  {
    method: 'GET',
    path: '/items',
    summary: 'List the items of a client account (active only unless is_active says otherwise), filtered by type and free text, paged.',
    document: /* GraphQL */ `
      query ListItems($clientAccountId: Int!, $itemType: ItemType, $isActive: Boolean, $freeText: String,
                      $orderBy: [String!], $page: Int, $perPage: Int) {
        items(clientAccountId: $clientAccountId, itemType: $itemType, isActive: $isActive, freeText: $freeText,
              orderBy: $orderBy, page: $page, perPage: $perPage) {
          data: nodes { ...ItemFields }
          meta { page pages per_page: perPage records }
        }
      }
      ${ITEM_FIELDS}`,
    with: WITH,
  },
  {
    method: 'GET',
    path: '/items/:id',
    summary: 'Get one item.',
    document: /* GraphQL */ `
      query GetItem($id: Int!) { item(id: $id) { ...ItemFields } }
      ${ITEM_FIELDS}`,
    with: WITH,
  },
  {
    method: 'POST',
    path: '/items',
    summary: 'Create an item (a product or service) in a client account.',
    document: /* GraphQL */ `
      mutation CreateItem($input: CreateItemInput!) { createItem(input: $input) { ...ItemFields } }
      ${ITEM_FIELDS}`,
    status: 201,
    with: WITH,
  },
  {
    method: 'PUT',
    path: '/items/:id',
    summary: 'Update an item: only the fields sent change; client_account_id cannot change.',
    document: /* GraphQL */ `
      mutation UpdateItem($id: Int!, $input: UpdateItemInput!) { updateItem(id: $id, input: $input) { ...ItemFields } }
      ${ITEM_FIELDS}`,
    with: WITH,
  },
  {
    method: 'DELETE',
    path: '/items/:id',
    summary: 'Delete an item: it is deactivated (is_active false) and kept for the records that refer to it.',
    document: /* GraphQL */ `
      mutation DeactivateItem($id: Int!) { deactivateItem(id: $id) { ...ItemFields } }
      ${ITEM_FIELDS}`,
    with: WITH,
  },
]);
