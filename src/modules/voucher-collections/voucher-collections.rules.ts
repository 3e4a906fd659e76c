import { z } from 'zod';
import { pageArgs, type PageLimits } from '../../shared/pagination.ts';
import { id, immutable, optionalText } from '../../shared/validation.ts';

/** GET /voucher-collections: page 1, per_page 100 (spec 001), also the most (each may embed its vouchers). */
export const VOUCHER_COLLECTION_PAGE_LIMITS: PageLimits = { defaultPerPage: 100, maxPerPage: 100 };

/** A collection's own fields (spec 001 "Voucher collection"): both optional; empty clears. */
const collectionFields = {
  name: optionalText(150),
  description: optionalText(1000),
};

export const voucherCollectionRules = {
  list: z.object({ clientAccountId: id, ...pageArgs }),
  create: z.object({ input: z.object({ clientAccountId: id, ...collectionFields }) }),
  update: z.object({
    id,
    /** omitted fields keep their value; client_account_id may be sent back but not changed */
    input: z.object({ ...collectionFields, clientAccountId: immutable }),
  }),
};
