import type { Tag } from '../../generated/prisma/client.ts';
import { dimensionRecords } from '../../shared/dimension-records.ts';
import type { PageLimits } from '../../shared/pagination.ts';
import { tagRules } from './tags.rules.ts';

export const TAG_PAGE_LIMITS: PageLimits = { defaultPerPage: 50, maxPerPage: 100 };

/**
 * Tags (GraphQL only; spec 001 has no paths for them): names unique within a client account, listed
 * by name; isActive false deactivates a tag and true reactivates it, with no balance check (spec 001
 * "States and transitions" checks balances for projects and departments only).
 */
const tags = dimensionRecords<Tag, typeof tagRules>({
  model: 'tag',
  what: 'Tag',
  rules: tagRules,
  pageLimits: TAG_PAGE_LIMITS,
  orderBy: 'name',
  uniqueName: true,
});

export const { list: listTags, get: getTag, create: createTag, update: updateTag } = tags;
