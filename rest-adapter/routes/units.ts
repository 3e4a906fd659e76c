import { defineOperations } from '../operation.ts';

// spec 001, "Items and units": GET /units, GET /units/{id}
const UNIT_FIELDS = /* GraphQL */ `
  fragment UnitFields on Unit {
    id
    symbol
    un_ece_rec_20_code: unEceRec20Code
    un_ece_rec_21_code: unEceRec21Code
    description
  }`;

export const unitOperations = defineOperations([
  {
    method: 'GET',
    path: '/units',
    summary: 'List the units of measure (UN/ECE Recommendation 20 and 21), paged.',
    document: /* GraphQL */ `
      query ListUnits($orderBy: [String!], $page: Int, $perPage: Int) {
        units(orderBy: $orderBy, page: $page, perPage: $perPage) {
          data: nodes { ...UnitFields }
          meta { page pages per_page: perPage records }
        }
      }
      ${UNIT_FIELDS}`,
  },
  {
    method: 'GET',
    path: '/units/:id',
    summary: 'Get one unit of measure.',
    document: /* GraphQL */ `
      query GetUnit($id: Int!) { unit(id: $id) { ...UnitFields } }
      ${UNIT_FIELDS}`,
  },
]);

export { UNIT_FIELDS };
