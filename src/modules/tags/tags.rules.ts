import { dimensionRules } from '../../shared/dimension-records.ts';
import { nonEmptyText } from '../../shared/validation.ts';

/** The inputs of every tag operation (the GraphQL fields' arguments): a tag's own fields, what create and update share. */
export const tagRules = dimensionRules({
  /** unique within the client account */
  name: nonEmptyText(100),
});
