import type { Asset } from '../../generated/prisma/client.ts';
import { dimensionRecords } from '../../shared/dimension-records.ts';
import type { PageLimits } from '../../shared/pagination.ts';
import { assetRules } from './assets.rules.ts';

export const ASSET_PAGE_LIMITS: PageLimits = { defaultPerPage: 50, maxPerPage: 100 };

/**
 * Assets (GraphQL only; spec 001 has no paths for them): names need not be unique, listed by name;
 * isActive false deactivates an asset and true reactivates it, with no balance check (spec 001
 * "States and transitions" checks balances for projects and departments only).
 */
const assets = dimensionRecords<Asset, typeof assetRules>({
  model: 'asset',
  what: 'Asset',
  rules: assetRules,
  pageLimits: ASSET_PAGE_LIMITS,
  orderBy: 'name',
});

export const { list: listAssets, get: getAsset, create: createAsset, update: updateAsset } = assets;
