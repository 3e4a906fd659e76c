import { z } from 'zod';
import { AutonomyLevel } from '../../generated/prisma/enums.ts';
import { dimensionRules } from '../../shared/dimension-records.ts';
import { nonEmptyText } from '../../shared/validation.ts';

/**
 * The inputs of every department operation (the GraphQL fields' arguments): a department's own
 * fields, what create and update share. isActive false deactivates (balances checked).
 */
export const departmentRules = dimensionRules({
  /** need not be unique */
  name: nonEmptyText(250),
  /** optional marker of operational independence; null clears it */
  autonomyLevel: z.enum(AutonomyLevel).nullish(),
});
