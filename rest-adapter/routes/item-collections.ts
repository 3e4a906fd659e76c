import { defineOperations, withVariable } from '../operation.ts';
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

const COLLECTION_RELATIONS = ['entries', ...ENTRY_RELATIONS.map((r) => `entries.${r}`)] as const;

/** GET /item-collections/{id} embeds the entries unless `with` says otherwise; POST answers the same shape. */
const collectionWith = { allowed: COLLECTION_RELATIONS, default: ['entries'] } as const;
const entryWith = { allowed: ENTRY_RELATIONS } as const;

export const itemCollectionOperations = defineOperations([
  {
    method: 'GET',
    path: '/item-collections',
    summary: 'List the item collections (templates, carts, orders) of a client account, filtered by type and name, paged.',
    document: /* GraphQL */ `
      query ListItemCollections($clientAccountId: Int!, $collectionTypes: [CollectionType!], $name: String, $page: Int, $perPage: Int) {
        itemCollections(clientAccountId: $clientAccountId, collectionTypes: $collectionTypes, name: $name, page: $page, perPage: $perPage) {
          data: nodes { ...CollectionFields }
          meta { page pages per_page: perPage records }
        }
      }
      ${COLLECTION_FIELDS}`,
    names: { collectionTypes: 'collection_type' },
    with: { allowed: COLLECTION_RELATIONS },
  },
  {
    method: 'GET',
    path: '/item-collections/:id',
    summary: 'Get one item collection; its entries are included unless with says otherwise.',
    document: /* GraphQL */ `
      query GetItemCollection($id: Int!) { itemCollection(id: $id) { ...CollectionFields } }
      ${COLLECTION_FIELDS}`,
    with: collectionWith,
  },
  {
    method: 'POST',
    path: '/item-collections',
    summary: 'Create an item collection (TEMPLATE, CART or ORDER) in a client account.',
    document: /* GraphQL */ `
      mutation CreateItemCollection($input: CreateItemCollectionInput!) { createItemCollection(input: $input) { ...CollectionFields } }
      ${COLLECTION_FIELDS}`,
    status: 201,
    with: collectionWith,
  },
  {
    method: 'GET',
    path: '/item-collections/:id/entries',
    summary: "List a collection's entries, filtered by items and projects; entries a document has used are left out unless include_used.",
    document: /* GraphQL */ `
      query ListItemCollectionEntries($itemCollectionId: Int!, $itemIds: [Int!], $projectIds: [Int!], $includeUsed: Boolean,
                                      $orderBy: [String!], $page: Int, $perPage: Int) {
        itemCollectionEntries(itemCollectionId: $itemCollectionId, itemIds: $itemIds, projectIds: $projectIds,
                              includeUsed: $includeUsed, orderBy: $orderBy, page: $page, perPage: $perPage) {
          data: nodes { ...EntryFields }
          meta { page pages per_page: perPage records }
        }
      }
      ${ENTRY_FIELDS}`,
    names: { itemCollectionId: 'id', itemIds: 'item_id', projectIds: 'project_id' },
    with: entryWith,
  },
  {
    method: 'POST',
    path: '/item-collections/:id/entries',
    summary: 'Add an entry (an item line with optional recurring terms) to a collection.',
    document: /* GraphQL */ `
      mutation CreateItemCollectionEntry($input: CreateItemCollectionEntryInput!) { createItemCollectionEntry(input: $input) { ...EntryFields } }
      ${ENTRY_FIELDS}`,
    names: { 'input.itemCollectionId': 'id' },
    status: 201,
    with: entryWith,
  },
  {
    method: 'PUT',
    path: '/item-collections/:id/entries/:entry_id',
    summary: 'Update an entry of a collection: only the fields sent change; item_collection_id cannot change.',
    document: /* GraphQL */ `
      mutation UpdateItemCollectionEntry($id: Int!, $itemCollectionId: Int!, $input: UpdateItemCollectionEntryInput!) {
        updateItemCollectionEntry(id: $id, itemCollectionId: $itemCollectionId, input: $input) { ...EntryFields }
      }
      ${ENTRY_FIELDS}`,
    names: { id: 'entry_id', itemCollectionId: 'id' },
    status: 202,
    with: entryWith,
  },
  {
    method: 'DELETE',
    path: '/item-collections/:id/entries/:entry_id',
    summary: 'Delete an entry of a collection permanently; answers the entry as it was.',
    document: /* GraphQL */ `
      mutation DeleteItemCollectionEntry($id: Int!, $itemCollectionId: Int!) {
        deleteItemCollectionEntry(id: $id, itemCollectionId: $itemCollectionId) { ...EntryFields }
      }
      ${ENTRY_FIELDS}`,
    names: { id: 'entry_id', itemCollectionId: 'id' },
    with: entryWith,
  },
]);
