import { dimensionRules } from '../../shared/dimension-records.ts';
import { filterText, nonEmptyText, optionalText } from '../../shared/validation.ts';

/**
 * The inputs of every project operation (the GraphQL fields' arguments): a project's own fields, what
 * create and update share; the list filters by part of the name. isActive false deactivates
 * (balances checked).
 */
export const projectRules = dimensionRules(
  {
    /** unique within the client account */
    name: nonEmptyText(250),
    /** empty clears it */
    description: optionalText(1000),
  },
  {
    /** case-insensitive part of the name */
    name: filterText,
  },
);
