import { z } from 'zod';
import { pageArgs } from '../../shared/pagination.ts';
import { filterText, flag, id, immutable, nonEmptyText, optionalText } from '../../shared/validation.ts';

/** A project's own fields: what create and update share. */
const projectFields = {
  /** unique within the client account */
  name: nonEmptyText(250),
  /** empty clears it */
  description: optionalText(1000),
};

/** The inputs of every project operation (the GraphQL fields' arguments). */
export const projectRules = {
  list: z.object({
    clientAccountId: id,
    /** default true; null lists active and inactive projects */
    isActive: z.boolean().nullish(),
    /** case-insensitive part of the name */
    name: filterText,
    ...pageArgs,
  }),
  create: z.object({ input: z.object({ clientAccountId: id, ...projectFields }) }),
  update: z.object({
    id,
    /** omitted fields keep their value; clientAccountId may be sent back but not changed; isActive false deactivates (balances checked) */
    input: z.object(projectFields).partial().extend({ clientAccountId: immutable, isActive: flag }),
  }),
};
