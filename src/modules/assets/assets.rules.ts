import { z } from 'zod';
import { pageArgs } from '../../shared/pagination.ts';
import { flag, id, immutable, nonEmptyText, optionalText } from '../../shared/validation.ts';

/** An asset's own fields: what create and update share. */
const assetFields = {
  name: nonEmptyText(250),
  /** empty clears it */
  description: optionalText(1000),
  acquisitionDate: z.date().nullish(),
};

/** The inputs of every asset operation (the GraphQL fields' arguments). */
export const assetRules = {
  list: z.object({
    clientAccountId: id,
    /** default true; null lists active and inactive assets */
    isActive: z.boolean().nullish(),
    ...pageArgs,
  }),
  create: z.object({ input: z.object({ clientAccountId: id, ...assetFields }) }),
  update: z.object({
    id,
    /** omitted fields keep their value, null clears an optional one; clientAccountId may be sent back but not changed */
    input: z.object(assetFields).partial().extend({ clientAccountId: immutable, isActive: flag }),
  }),
};
