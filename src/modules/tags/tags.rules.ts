import { z } from 'zod';
import { pageArgs } from '../../shared/pagination.ts';
import { flag, id, immutable, nonEmptyText } from '../../shared/validation.ts';

/** A tag's own fields: what create and update share. */
const tagFields = {
  /** unique within the client account */
  name: nonEmptyText(100),
};

/** The inputs of every tag operation (the GraphQL fields' arguments). */
export const tagRules = {
  list: z.object({
    clientAccountId: id,
    /** default true; null lists active and inactive tags */
    isActive: z.boolean().nullish(),
    ...pageArgs,
  }),
  create: z.object({ input: z.object({ clientAccountId: id, ...tagFields }) }),
  update: z.object({
    id,
    /** omitted fields keep their value; clientAccountId may be sent back but not changed */
    input: z.object(tagFields).partial().extend({ clientAccountId: immutable, isActive: flag }),
  }),
};
