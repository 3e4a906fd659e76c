import { z } from 'zod';
import { auditUserId, inTransaction, type RequestContext } from './context.ts';
import { checkDeactivation, type BalancedDimension } from './dimension-balances.ts';
import { findPage, pageArgs, pageWindow, type Page, type PageLimits } from './pagination.ts';
import { nextSequenceNumber, type NumberedKind } from './sequence.ts';
import { requireAccount, requireOwned } from './tenancy.ts';
import { check, checkUnique, flag, id, immutable, parse, type Args } from './validation.ts';

/**
 * The records journal lines name as a dimension and that a client account keeps as a plain list:
 * projects, departments, tags, assets. One service for their shared operations, so the rules are written
 * once: list (active ones by default; null lists all), get (404, 403 for another account), create
 * (optionally numbered 1, 2, 3 … per account, optionally with a name unique in the account), update
 * (only the fields sent; the client account immutable; false on an active record deactivates it) and
 * deactivate (the record is kept, journal lines refer to it). A kind whose deactivation spec 001
 * checks against balances names its `balanced` dimension. Their GraphQL fields are written once too,
 * in account-record-fields.ts.
 */

/** The record every kind stores: its id, account, and active flag. */
interface DimensionRecord {
  id: number;
  clientAccountId: number;
  isActive: boolean;
}

/** A Prisma query from Pothos: which relations and fields the response needs. */
type Query = { include?: object; select?: object };

/**
 * A kind's rules (the arguments of its operations) from its own fields, those create and update
 * share: list by client account (isActive true by default, null lists all; the kind's `filters`
 * beside), create in a client account, update of the fields sent (clientAccountId may be sent back
 * but not changed; isActive false deactivates, true reactivates).
 */
export function dimensionRules<F extends z.ZodRawShape, L extends z.ZodRawShape = {}>(fields: F, filters?: L) {
  return {
    list: z.object({ clientAccountId: id, isActive: z.boolean().nullish(), ...(filters as L), ...pageArgs }),
    create: z.object({ input: z.object({ clientAccountId: id, ...fields }) }),
    update: z.object({ id, input: z.object(fields).partial().extend({ clientAccountId: immutable, isActive: flag }) }),
  };
}

/** The inputs every kind's rules share (each kind adds its own fields). */
type Rules = {
  list: z.ZodType<{ clientAccountId: number; isActive?: boolean | null; name?: string | null; page?: number | null; perPage?: number | null }>;
  create: z.ZodType<{ input: { clientAccountId: number; name?: string } }>;
  update: z.ZodType<{ id: number; input: { clientAccountId?: unknown; name?: string; isActive?: boolean | null } }>;
};

export interface DimensionKind<R extends Rules> {
  /** the Prisma model, and the name the kind's uniqueness messages use */
  model: 'project' | 'department' | 'tag' | 'asset';
  /** the model's GraphQL/REST name, as 404s say it: 'Project' */
  what: string;
  rules: R;
  pageLimits: PageLimits;
  /** the list's order: by the per-account number, or by name */
  orderBy: 'sequenceNumber' | 'name';
  /** numbered 1, 2, 3 … per client account on creation */
  numbered?: NumberedKind;
  /** names are unique within a client account */
  uniqueName?: boolean;
  /** deactivation is refused while a mandatory-dimension account has a balance for the record */
  balanced?: BalancedDimension;
}

/** The Prisma delegate calls the service makes, the same for every kind's model. */
interface Delegate<T> {
  findMany(args: object): Promise<T[]>;
  count(args: object): Promise<number>;
  findUnique(args: object): Promise<T | null>;
  create(args: object): Promise<T>;
  update(args: object): Promise<T>;
}

export function dimensionRecords<T extends DimensionRecord, R extends Rules>(kind: DimensionKind<R>) {
  const table = (ctx: RequestContext) => ctx.db[kind.model] as unknown as Delegate<T>;
  const uniqueName = (clientAccountId: number, name: string | undefined, exceptId?: number) =>
    ({ model: kind.model, what: kind.model, clientAccountId, field: 'name', value: name, exceptId }) as const;

  async function list(ctx: RequestContext, args: Args<R['list']>, query: Query = {}): Promise<Page<T>> {
    const { clientAccountId, isActive = true, name, ...window } = parse(kind.rules.list, args);
    await requireAccount(ctx, clientAccountId);
    const where: Record<string, unknown> = { clientAccountId };
    if (isActive !== null) where.isActive = isActive;
    if (name?.trim()) where.name = { contains: name.trim(), mode: 'insensitive' };
    return findPage(
      pageWindow(window, kind.pageLimits),
      (w) => table(ctx).findMany({ ...query, where, orderBy: [{ [kind.orderBy]: 'asc' }, { id: 'asc' }], ...w }),
      () => table(ctx).count({ where }),
    );
  }

  /** 404 when missing, 403 when it belongs to a client account the caller cannot access. */
  async function get(ctx: RequestContext, { id }: { id: number }, query: Query = {}): Promise<T> {
    return requireOwned(ctx, kind.what, await table(ctx).findUnique({ ...query, where: { id } }));
  }

  async function create(ctx: RequestContext, args: Args<R['create']>, query: Query = {}): Promise<T> {
    const parsed = parse(kind.rules.create, args);
    const clientAccountId = parsed.input.clientAccountId;
    return inTransaction(ctx, async (tx) => {
      await requireAccount(tx, clientAccountId);
      const { input } = await check(tx, parsed, {
        check: ({ input }, _found, issues) => (kind.uniqueName ? checkUnique(tx, issues, uniqueName(clientAccountId, input.name)) : undefined),
      });
      const user = auditUserId(tx);
      const sequenceNumber = kind.numbered ? { sequenceNumber: await nextSequenceNumber(tx, clientAccountId, kind.numbered) } : {};
      return table(tx).create({ ...query, data: { ...input, ...sequenceNumber, createdById: user, updatedById: user } });
    });
  }

  async function update(ctx: RequestContext, args: Args<R['update']>, query: Query = {}): Promise<T> {
    const parsed = parse(kind.rules.update, args);
    return inTransaction(ctx, async (tx) => {
      const record = await get(tx, parsed);
      const { input } = await check(tx, parsed, {
        immutable: { clientAccountId: record.clientAccountId },
        check: ({ input }, _found, issues) =>
          kind.uniqueName ? checkUnique(tx, issues, uniqueName(record.clientAccountId, input.name, record.id)) : undefined,
      });
      const { clientAccountId: _immutable, ...fields } = input;
      if (kind.balanced) await checkDeactivation(tx, kind.balanced, record, fields.isActive);
      return table(tx).update({ ...query, where: { id: record.id }, data: { ...fields, updatedById: auditUserId(tx) } });
    });
  }

  /** An inactive record is answered unchanged. */
  async function deactivate(ctx: RequestContext, args: { id: number }, query: Query = {}): Promise<T> {
    return inTransaction(ctx, async (tx) => {
      const record = await get(tx, args);
      if (!record.isActive) return get(tx, args, query);
      if (kind.balanced) await checkDeactivation(tx, kind.balanced, record, false);
      return table(tx).update({ ...query, where: { id: record.id }, data: { isActive: false, updatedById: auditUserId(tx) } });
    });
  }

  return { list, get, create, update, deactivate };
}
