import { ValidationError } from '../../src/shared/errors.ts';
import { defineRoute, withVariable, type RouteDefinition } from '../define-route.ts';
import { bodyInput, pathId } from '../params.ts';
import { TAX_CODE_FIELDS } from './tax-codes.ts';
import { ITEM_SCALAR_FIELDS } from './items.ts';
import { UNIT_FIELDS } from './units.ts';

// spec 001, "Item collection and entry" and "Item collections":
// GET/POST /item-collections, GET /item-collections/{id},
// GET/POST /item-collections/{id}/entries, PUT/DELETE /item-collections/{id}/entries/{entry_id}

const BUSINESS_PARTNER_FIELDS = /* GraphQL */ `
  fragment CollectionBusinessPartnerFields on BusinessPartner {
    id
    name
    organization_number: organizationNumber
    email
    is_customer: isCustomer
    is_supplier: isSupplier
  }`;

/** spec 001 "Commercial document", document line fields. */
const DOCUMENT_LINE_FIELDS = /* GraphQL */ `
  fragment CollectionDocumentLineFields on DocumentLine {
    id
    document_id: documentId
    line_id: lineId
    item_id: itemId
    item_no: itemNo
    item_name: itemName
    description
    price
    currency_code: currencyCode
    quantity
    unit_id: unitId
    tax_code_id: taxCodeId
    tax_rate: taxRate
    tax_amount_lc: taxAmountLc
    tax_amount_fc: taxAmountFc
    total_lc: totalLc
    total_fc: totalFc
    item_collection_entry_id: itemCollectionEntryId
  }`;

const ENTRY_RELATIONS = ['item', 'unit', 'tax_code_details', 'business_partner', 'document_lines'] as const;

/**
 * The entry fragment. Its relations are included by `$with_<prefix><relation>`: `with=item` on the
 * entry routes, `with=entries.item` on the collection routes.
 */
function entryFields(fragment: string, prefix: '' | 'entries.') {
  const v = (relation: string) => `$${withVariable(prefix + relation)}`;
  return /* GraphQL */ `
  fragment ${fragment} on ItemCollectionEntry {
    id
    item_collection_id: itemCollectionId
    item_id: itemId
    description
    quantity
    price
    currency_code: currencyCode
    unit_id: unitId
    tax_code_id: taxCodeId
    business_partner_id: businessPartnerId
    project_id: projectId
    recurring_start_date: recurringStartDate
    recurring_end_date: recurringEndDate
    recurring_terms: recurringTerms
    recurring_interval: recurringInterval
    refund_policy: refundPolicy
    trial_end_date: trialEndDate
    created_at: createdAt
    created_by_id: createdById
    updated_at: updatedAt
    updated_by_id: updatedById
    item @include(if: ${v('item')}) { ...ItemScalarFields }
    unit @include(if: ${v('unit')}) { ...UnitFields }
    tax_code_details: taxCode @include(if: ${v('tax_code_details')}) { ...TaxCodeFields }
    business_partner: businessPartner @include(if: ${v('business_partner')}) { ...CollectionBusinessPartnerFields }
    document_lines: documentLines @include(if: ${v('document_lines')}) { ...CollectionDocumentLineFields }
  }
  ${ITEM_SCALAR_FIELDS}
  ${UNIT_FIELDS}
  ${TAX_CODE_FIELDS}
  ${BUSINESS_PARTNER_FIELDS}
  ${DOCUMENT_LINE_FIELDS}`;
}

const ENTRY_FIELDS = entryFields('EntryFields', '');

const COLLECTION_FIELDS = /* GraphQL */ `
  fragment CollectionFields on ItemCollection {
    id
    client_account_id: clientAccountId
    name
    collection_type: collectionType
    created_at: createdAt
    created_by_id: createdById
    updated_at: updatedAt
    updated_by_id: updatedById
    entries @include(if: $with_entries) { ...CollectionEntryFields }
  }
  ${entryFields('CollectionEntryFields', 'entries.')}`;

const variablesOf = (relations: readonly string[]) => relations.map((r) => `$${withVariable(r)}: Boolean = false`).join(', ');

const COLLECTION_RELATIONS = ['entries', ...ENTRY_RELATIONS.map((r) => `entries.${r}`)] as const;
const COLLECTION_WITH = variablesOf(COLLECTION_RELATIONS);
const ENTRY_WITH = variablesOf(ENTRY_RELATIONS);

/** GET /item-collections/{id} embeds the entries unless `with` says otherwise; POST answers the same shape. */
const collectionWith = { allowed: COLLECTION_RELATIONS, default: ['entries'] } as const;
const entryWith = { allowed: ENTRY_RELATIONS } as const;

/** Fields a client may echo back from a GET in a PUT body; they are ignored. */
const ENTRY_READ_ONLY = ['id', 'created_at', 'created_by_id', 'updated_at', 'updated_by_id', ...ENTRY_RELATIONS];

export const itemCollectionRoutes: RouteDefinition[] = [
  defineRoute({
    method: 'GET',
    path: '/item-collections',
    document: /* GraphQL */ `
      query ItemCollections($clientAccountId: Int!, $collectionTypes: [CollectionType!], $name: String,
                            $page: Int, $perPage: Int, ${COLLECTION_WITH}) {
        itemCollections(clientAccountId: $clientAccountId, collectionTypes: $collectionTypes, name: $name,
                        page: $page, perPage: $perPage) {
          data: nodes { ...CollectionFields }
          meta { page pages per_page: perPage records }
        }
      }
      ${COLLECTION_FIELDS}`,
    variables: ({ query }) => ({
      clientAccountId: query.requiredInt('client_account_id'),
      collectionTypes: query.enumList('collection_type', ['TEMPLATE', 'CART', 'ORDER']),
      name: query.string('name'),
      page: query.int('page'),
      perPage: query.int('per_page'),
    }),
    result: 'itemCollections',
    with: { allowed: COLLECTION_RELATIONS },
  }),
  defineRoute({
    method: 'GET',
    path: '/item-collections/:id',
    document: /* GraphQL */ `
      query ItemCollection($id: Int!, ${COLLECTION_WITH}) { itemCollection(id: $id) { ...CollectionFields } }
      ${COLLECTION_FIELDS}`,
    variables: ({ params }) => ({ id: pathId(params) }),
    result: 'itemCollection',
    with: collectionWith,
  }),
  defineRoute({
    method: 'POST',
    path: '/item-collections',
    document: /* GraphQL */ `
      mutation CreateItemCollection($input: CreateItemCollectionInput!, ${COLLECTION_WITH}) {
        createItemCollection(input: $input) { ...CollectionFields }
      }
      ${COLLECTION_FIELDS}`,
    variables: ({ body }) => ({ input: bodyInput(body) }),
    result: 'createItemCollection',
    status: 201,
    with: collectionWith,
  }),
  defineRoute({
    method: 'GET',
    path: '/item-collections/:id/entries',
    document: /* GraphQL */ `
      query ItemCollectionEntries($itemCollectionId: Int!, $itemIds: [Int!], $projectIds: [Int!], $includeUsed: Boolean = false,
                                  $orderBy: [String!], $page: Int, $perPage: Int, ${ENTRY_WITH}) {
        itemCollectionEntries(itemCollectionId: $itemCollectionId, itemIds: $itemIds, projectIds: $projectIds,
                              includeUsed: $includeUsed, orderBy: $orderBy, page: $page, perPage: $perPage) {
          data: nodes { ...EntryFields }
          meta { page pages per_page: perPage records }
        }
      }
      ${ENTRY_FIELDS}`,
    variables: ({ params, query }) => ({
      itemCollectionId: pathId(params),
      itemIds: query.intList('item_id'),
      projectIds: query.intList('project_id'),
      includeUsed: query.bool('include_used'),
      orderBy: query.list('order_by'),
      page: query.int('page'),
      perPage: query.int('per_page'),
    }),
    result: 'itemCollectionEntries',
    with: entryWith,
  }),
  defineRoute({
    method: 'POST',
    path: '/item-collections/:id/entries',
    document: /* GraphQL */ `
      mutation CreateItemCollectionEntry($input: CreateItemCollectionEntryInput!, ${ENTRY_WITH}) {
        createItemCollectionEntry(input: $input) { ...EntryFields }
      }
      ${ENTRY_FIELDS}`,
    variables: ({ params, body }) => {
      const itemCollectionId = pathId(params);
      const input = bodyInput(body);
      // the collection is the path's; a body may repeat it but not name another
      if (input.itemCollectionId !== undefined && input.itemCollectionId !== itemCollectionId) {
        throw ValidationError.field('itemCollectionId', `must be the collection of the path (${itemCollectionId}) when given`);
      }
      return { input: { ...input, itemCollectionId } };
    },
    result: 'createItemCollectionEntry',
    status: 201,
    with: entryWith,
  }),
  defineRoute({
    method: 'PUT',
    path: '/item-collections/:id/entries/:entry_id',
    document: /* GraphQL */ `
      mutation UpdateItemCollectionEntry($id: Int!, $itemCollectionId: Int!, $input: UpdateItemCollectionEntryInput!, ${ENTRY_WITH}) {
        updateItemCollectionEntry(id: $id, itemCollectionId: $itemCollectionId, input: $input) { ...EntryFields }
      }
      ${ENTRY_FIELDS}`,
    variables: ({ params, body }) => ({
      id: pathId(params, 'entry_id'),
      itemCollectionId: pathId(params),
      input: bodyInput(body, { readOnly: ENTRY_READ_ONLY }),
    }),
    result: 'updateItemCollectionEntry',
    status: 202,
    with: entryWith,
  }),
  defineRoute({
    method: 'DELETE',
    path: '/item-collections/:id/entries/:entry_id',
    document: /* GraphQL */ `
      mutation DeleteItemCollectionEntry($id: Int!, $itemCollectionId: Int!, ${ENTRY_WITH}) {
        deleteItemCollectionEntry(id: $id, itemCollectionId: $itemCollectionId) { ...EntryFields }
      }
      ${ENTRY_FIELDS}`,
    variables: ({ params }) => ({ id: pathId(params, 'entry_id'), itemCollectionId: pathId(params) }),
    result: 'deleteItemCollectionEntry',
    with: entryWith,
  }),
];
