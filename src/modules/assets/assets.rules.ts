import { z } from 'zod';
import { dimensionRules } from '../../shared/dimension-records.ts';
import { nonEmptyText, optionalText } from '../../shared/validation.ts';

/**
 * The inputs of every asset operation (the GraphQL fields' arguments): an asset's own fields, what
 * create and update share; on update null clears an optional one.
 */
export const assetRules = dimensionRules({
  name: nonEmptyText(250),
  /** empty clears it */
  description: optionalText(1000),
  acquisitionDate: z.date().nullish(),
});
