import type { Document as PrismaDocument } from '../../generated/prisma/client.ts';
import { getRefFromModel } from '@pothos/plugin-prisma';
import { builder } from '../../builder.ts';
import type { RequestContext } from '../../shared/context.ts';
import { requestLoader } from '../../shared/loaders.ts';

/** The voucher → documents relations (spec 001 "Voucher relations": documents, document), on the documents module's Document object. */
/** The documents module's Document object (its prismaObject), found by model name. */
const DocumentRef = getRefFromModel('Document', builder);

builder.prismaObjectFields('Voucher', (t) => ({
  documents: t.relation('documents', {
    description: 'Commercial documents made from the voucher (voucher_id), oldest first',
    query: { orderBy: { id: 'asc' } },
  }),
  document: t.field({
    type: DocumentRef,
    nullable: true,
    description: "The voucher's primary document: its first one (null without one)",
    resolve: (v, _a, ctx) => firstDocument(ctx, v.id),
  }),
}));

/** The first document of each voucher: one query per request tick. */
function firstDocument(ctx: RequestContext, voucherId: number) {
  return requestLoader<number, PrismaDocument | null>(ctx.loaders, 'voucherFirstDocument', async (ids) => {
    const rows = await ctx.db.document.findMany({ where: { voucherId: { in: [...ids] } }, orderBy: { id: 'asc' }, distinct: ['voucherId'] });
    return ids.map((id) => rows.find((r) => r.voucherId === id) ?? null);
  }).load(voucherId);
}
