import { defineRoute } from '../define-route.ts';
import { pathId } from '../params.ts';

// spec 001, "Items and units": GET /units, GET /units/{id}
const UNIT_FIELDS = /* GraphQL */ `
  fragment UnitFields on Unit {
    id
    symbol
    un_ece_rec_20_code: unEceRec20Code
    un_ece_rec_21_code: unEceRec21Code
    description
  }`;

export const unitRoutes = [
  defineRoute({
    method: 'GET',
    path: '/units',
    document: /* GraphQL */ `
      query Units($orderBy: [String!], $page: Int, $perPage: Int) {
        units(orderBy: $orderBy, page: $page, perPage: $perPage) {
          data: nodes { ...UnitFields }
          meta { page pages per_page: perPage records }
        }
      }
      ${UNIT_FIELDS}`,
    variables: ({ query }) => ({ orderBy: query.list('order_by'), page: query.int('page'), perPage: query.int('per_page') }),
    result: 'units',
  }),
  defineRoute({
    method: 'GET',
    path: '/units/:id',
    document: /* GraphQL */ `
      query Unit($id: Int!) { unit(id: $id) { ...UnitFields } }
      ${UNIT_FIELDS}`,
    variables: ({ params }) => ({ id: pathId(params) }),
    result: 'unit',
  }),
];

export { UNIT_FIELDS };
