import { defineRoute } from '../define-route.ts';
import { bodyInput, pathId } from '../params.ts';
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

const WITH = '$with_sales_unit: Boolean = false, $with_stock_unit: Boolean = false, $with_tax_code: Boolean = false';
const with_ = { allowed: ['sales_unit', 'stock_unit', 'tax_code'] } as const;

/** Fields a client may echo back from a GET in a PUT body; they are ignored. */
const READ_ONLY = ['id', 'created_at', 'created_by_id', 'updated_at', 'updated_by_id', 'sales_unit', 'stock_unit', 'tax_code'];

export const itemRoutes = [
  defineRoute({
    method: 'GET',
    path: '/items',
    document: /* GraphQL */ `
      query Items($clientAccountId: Int!, $itemType: ItemType, $isActive: Boolean = true, $freeText: String,
                  $orderBy: [String!], $page: Int, $perPage: Int, ${WITH}) {
        items(clientAccountId: $clientAccountId, itemType: $itemType, isActive: $isActive, freeText: $freeText,
              orderBy: $orderBy, page: $page, perPage: $perPage) {
          data: nodes { ...ItemFields }
          meta { page pages per_page: perPage records }
        }
      }
      ${ITEM_FIELDS}`,
    variables: ({ query }) => ({
      clientAccountId: query.requiredInt('client_account_id'),
      itemType: query.enumValue('item_type', ['ITEM', 'SERVICE']),
      isActive: query.nullableBool('is_active'),
      freeText: query.string('free_text'),
      orderBy: query.list('order_by'),
      page: query.int('page'),
      perPage: query.int('per_page'),
    }),
    result: 'items',
    with: with_,
  }),
  defineRoute({
    method: 'GET',
    path: '/items/:id',
    document: /* GraphQL */ `
      query Item($id: Int!, ${WITH}) { item(id: $id) { ...ItemFields } }
      ${ITEM_FIELDS}`,
    variables: ({ params }) => ({ id: pathId(params) }),
    result: 'item',
    with: with_,
  }),
  defineRoute({
    method: 'POST',
    path: '/items',
    document: /* GraphQL */ `
      mutation CreateItem($input: CreateItemInput!, ${WITH}) { createItem(input: $input) { ...ItemFields } }
      ${ITEM_FIELDS}`,
    variables: ({ body }) => ({ input: bodyInput(body) }),
    result: 'createItem',
    status: 201,
    with: with_,
  }),
  defineRoute({
    method: 'PUT',
    path: '/items/:id',
    document: /* GraphQL */ `
      mutation UpdateItem($id: Int!, $input: UpdateItemInput!, ${WITH}) { updateItem(id: $id, input: $input) { ...ItemFields } }
      ${ITEM_FIELDS}`,
    variables: ({ params, body }) => ({ id: pathId(params), input: bodyInput(body, { readOnly: READ_ONLY }) }),
    result: 'updateItem',
    with: with_,
  }),
  defineRoute({
    method: 'DELETE',
    path: '/items/:id',
    document: /* GraphQL */ `
      mutation DeactivateItem($id: Int!, ${WITH}) { deactivateItem(id: $id) { ...ItemFields } }
      ${ITEM_FIELDS}`,
    variables: ({ params }) => ({ id: pathId(params) }),
    result: 'deactivateItem',
    with: with_,
  }),
];
