import { z } from 'zod';
import { AutonomyLevel, ItemType } from '../../generated/prisma/enums.ts';
import { orderByNames, pageArgs } from '../../shared/pagination.ts';
import { decimal, filterText, flag, id, immutable, jsonObjectOrNull, nonEmptyText, required, text } from '../../shared/validation.ts';

/** spec 001 "Items and units": order_by names (description orders by the item's name). */
export const ITEM_ORDER: Record<string, string> = {
  id: 'id',
  item_no: 'itemNo',
  name: 'name',
  description: 'name',
  item_type: 'itemType',
  price: 'price',
  created_at: 'createdAt',
  updated_at: 'updatedAt',
};

/** An item's own fields: what create and update share. */
const itemFields = {
  /** unique within the client account */
  itemNo: nonEmptyText(100),
  name: text(250).nullish(),
  itemType: z.enum(ItemType, required),
  salesUnitId: id,
  stockUnitId: id.nullish(),
  taxCodeId: id,
  /** unit price, Decimal(18, 6); null stores 0 */
  price: decimal({ precision: 18, scale: 6 }).nullish(),
  metadata: jsonObjectOrNull,
  /** null: inherit the client account default */
  autonomyLevel: z.enum(AutonomyLevel).nullish(),
};

/** The inputs of every item operation (the GraphQL fields' arguments). */
export const itemRules = {
  list: z.object({
    clientAccountId: id,
    itemType: z.enum(ItemType).nullish(),
    /** default true; null lists active and inactive items */
    isActive: z.boolean().nullish(),
    freeText: filterText,
    orderBy: orderByNames(ITEM_ORDER),
    ...pageArgs,
  }),
  create: z.object({
    input: z.object({ clientAccountId: id, ...itemFields, itemType: itemFields.itemType.optional() }),
  }),
  update: z.object({
    id,
    /** omitted fields keep their value; clientAccountId may be sent back but not changed */
    input: z.object(itemFields).partial().extend({ clientAccountId: immutable, isActive: flag }),
  }),
};
