import { builder } from '../../builder.ts';
import { fixed, fixedOrNull } from '../../shared/scalars.ts';

/**
 * Document lines (spec 001 "Commercial document", line fields). Item collection entries list the
 * lines that consumed them; the documents module adds documents and their endpoints.
 */
export const DocumentLine = builder.prismaObject('DocumentLine', {
  runScopesOnType: true,
  authScopes: (line) => ({ account: line.document.clientAccountId }),
  include: { document: { select: { clientAccountId: true } } },
  fields: (t) => ({
    id: t.exposeInt('id'),
    documentId: t.exposeInt('documentId'),
    lineId: t.exposeInt('lineId'),
    itemId: t.exposeInt('itemId', { nullable: true }),
    itemNo: t.exposeString('itemNo', { nullable: true }),
    itemName: t.exposeString('itemName', { nullable: true }),
    description: t.exposeString('description', { nullable: true }),
    price: t.field({ type: 'Decimal', resolve: fixed('price', 6) }),
    currencyCode: t.exposeString('currencyCode'),
    quantity: t.field({ type: 'Decimal', resolve: fixed('quantity', 6) }),
    unitId: t.exposeInt('unitId', { nullable: true }),
    taxCodeId: t.exposeInt('taxCodeId', { nullable: true }),
    taxRate: t.field({ type: 'Decimal', nullable: true, resolve: fixedOrNull('taxRate', 2) }),
    taxAmountLc: t.field({ type: 'Decimal', resolve: fixed('taxAmountLc', 2) }),
    taxAmountFc: t.field({ type: 'Decimal', resolve: fixed('taxAmountFc', 2) }),
    totalLc: t.field({ type: 'Decimal', resolve: fixed('totalLc', 2) }),
    totalFc: t.field({ type: 'Decimal', resolve: fixed('totalFc', 2) }),
    itemCollectionEntryId: t.exposeInt('itemCollectionEntryId', { nullable: true }),
  }),
});
