import type { Prisma as PrismaNS } from '../../generated/prisma/client.ts';
import { auditUserId, inTransaction, type RequestContext } from '../../shared/context.ts';
import { findPage, pageWindow } from '../../shared/pagination.ts';
import { requireAccount, requireOwned } from '../../shared/tenancy.ts';
import { check, parse, validate, type Args } from '../../shared/validation.ts';
import { VOUCHER_COLLECTION_PAGE_LIMITS, voucherCollectionRules as rules } from './voucher-collections.rules.ts';

type Query = { include?: PrismaNS.VoucherCollectionInclude; select?: PrismaNS.VoucherCollectionSelect };

/** GET /voucher-collections: the collections of a client account, newest first. */
export async function listVoucherCollections(ctx: RequestContext, args: Args<typeof rules.list>, query: Query = {}) {
  const { clientAccountId, ...window } = parse(rules.list, args);
  await requireAccount(ctx, clientAccountId);
  const where = { clientAccountId };
  return findPage(
    pageWindow(window, VOUCHER_COLLECTION_PAGE_LIMITS),
    (w) => ctx.db.voucherCollection.findMany({ ...query, where, orderBy: [{ createdAt: 'desc' }, { id: 'desc' }], ...w }),
    () => ctx.db.voucherCollection.count({ where }),
  );
}

/** 404 when missing, 403 when it belongs to a client account the caller cannot access. */
export async function getVoucherCollection(ctx: RequestContext, { id }: { id: number }, query: Query = {}) {
  return requireOwned(ctx, `Voucher collection ${id}`, await ctx.db.voucherCollection.findUnique({ ...query, where: { id } }));
}

/** POST /voucher-collections: created_by_id and updated_by_id are the caller. */
export async function createVoucherCollection(ctx: RequestContext, args: Args<typeof rules.create>, query: Query = {}) {
  const parsed = parse(rules.create, args);
  return inTransaction(ctx, async (tx) => {
    await requireAccount(tx, args.input.clientAccountId);
    const { input } = await check(tx, parsed);
    const user = auditUserId(tx);
    return tx.db.voucherCollection.create({ ...query, data: { ...input, createdById: user, updatedById: user } });
  });
}

/** PUT /voucher-collections/{id}: name and description; client_account_id cannot change (400). */
export async function updateVoucherCollection(ctx: RequestContext, args: Args<typeof rules.update>, query: Query = {}) {
  const parsed = parse(rules.update, args);
  return inTransaction(ctx, async (tx) => {
    const current = await getVoucherCollection(tx, args, { select: { id: true, clientAccountId: true } });
    const { input } = await check(tx, parsed, { immutable: { clientAccountId: current.clientAccountId } });
    const { clientAccountId: _immutable, ...fields } = input;
    return tx.db.voucherCollection.update({ ...query, where: { id: current.id }, data: { ...fields, updatedById: auditUserId(tx) } });
  });
}
