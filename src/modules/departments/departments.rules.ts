import { z } from 'zod';
import { AutonomyLevel } from '../../generated/prisma/enums.ts';
import { pageArgs } from '../../shared/pagination.ts';
import { flag, id, immutable, nonEmptyText } from '../../shared/validation.ts';

/** A department's own fields: what create and update share. */
const departmentFields = {
  /** need not be unique */
  name: nonEmptyText(250),
  /** optional marker of operational independence; null clears it */
  autonomyLevel: z.enum(AutonomyLevel).nullish(),
};

/** The inputs of every department operation (the GraphQL fields' arguments). */
export const departmentRules = {
  list: z.object({
    clientAccountId: id,
    /** default true; null lists active and inactive departments */
    isActive: z.boolean().nullish(),
    ...pageArgs,
  }),
  create: z.object({ input: z.object({ clientAccountId: id, ...departmentFields }) }),
  update: z.object({
    id,
    /** omitted fields keep their value; clientAccountId may be sent back but not changed; isActive false deactivates (balances checked) */
    input: z.object(departmentFields).partial().extend({ clientAccountId: immutable, isActive: flag }),
  }),
};
