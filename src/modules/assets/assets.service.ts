import type { Prisma as PrismaNS } from '../../generated/prisma/client.ts';
import { auditUserId, inTransaction, type RequestContext } from '../../shared/context.ts';
import { findPage, pageWindow, type PageLimits } from '../../shared/pagination.ts';
import { requireAccount, requireOwned } from '../../shared/tenancy.ts';
import { check, parse, validate, type Args } from '../../shared/validation.ts';
import { assetRules as rules } from './assets.rules.ts';

type Query = { include?: PrismaNS.AssetInclude; select?: PrismaNS.AssetSelect };

export const ASSET_PAGE_LIMITS: PageLimits = { defaultPerPage: 50, maxPerPage: 100 };

export async function listAssets(ctx: RequestContext, args: Args<typeof rules.list>, query: Query = {}) {
  const { clientAccountId, isActive = true, ...window } = parse(rules.list, args);
  await requireAccount(ctx, clientAccountId);
  const where: PrismaNS.AssetWhereInput = { clientAccountId };
  if (isActive !== null) where.isActive = isActive;
  return findPage(
    pageWindow(window, ASSET_PAGE_LIMITS),
    (w) => ctx.db.asset.findMany({ ...query, where, orderBy: [{ name: 'asc' }, { id: 'asc' }], ...w }),
    () => ctx.db.asset.count({ where }),
  );
}

/** 404 when missing, 403 when it belongs to a client account the caller cannot access. */
export async function getAsset(ctx: RequestContext, { id }: { id: number }, query: Query = {}) {
  return requireOwned(ctx, 'Asset', await ctx.db.asset.findUnique({ ...query, where: { id } }));
}

export async function createAsset(ctx: RequestContext, args: Args<typeof rules.create>, query: Query = {}) {
  const parsed = parse(rules.create, args);
  return inTransaction(ctx, async (tx) => {
    await requireAccount(tx, args.input.clientAccountId);
    const { input } = await check(tx, parsed);
    const user = auditUserId(tx);
    return tx.db.asset.create({ ...query, data: { ...input, createdById: user, updatedById: user } });
  });
}

/** Only the fields sent change; isActive false deactivates the asset, true reactivates it. */
export async function updateAsset(ctx: RequestContext, args: Args<typeof rules.update>, query: Query = {}) {
  const parsed = parse(rules.update, args);
  return inTransaction(ctx, async (tx) => {
    const asset = await getAsset(tx, args);
    const { input } = await check(tx, parsed, { immutable: { clientAccountId: asset.clientAccountId } });
    const { clientAccountId: _immutable, ...fields } = input;
    return tx.db.asset.update({ ...query, where: { id: asset.id }, data: { ...fields, updatedById: auditUserId(tx) } });
  });
}
