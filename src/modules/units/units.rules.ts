import { z } from 'zod';
import { orderByNames, pageArgs } from '../../shared/pagination.ts';

/** orderBy names of units. */
export const UNIT_ORDER = { id: 'id', symbol: 'symbol', description: 'description', un_ece_rec_20_code: 'unEceRec20Code' };

export const unitRules = {
  list: z.object({ orderBy: orderByNames(UNIT_ORDER), ...pageArgs }),
};
