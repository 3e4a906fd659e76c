import type { Prisma as PrismaNS } from '../../generated/prisma/client.ts';
import { auditUserId, inTransaction, type RequestContext } from '../../shared/context.ts';
import { checkDeactivation } from '../../shared/dimension-balances.ts';
import { findPage, pageWindow, type PageLimits } from '../../shared/pagination.ts';
import { nextSequenceNumber } from '../../shared/sequence.ts';
import { requireAccount, requireOwned } from '../../shared/tenancy.ts';
import { check, parse, validate, type Args } from '../../shared/validation.ts';
import { departmentRules as rules } from './departments.rules.ts';

type Query = { include?: PrismaNS.DepartmentInclude; select?: PrismaNS.DepartmentSelect };

/** spec 001 "Departments": per_page 50 by default (the spec names no maximum; 100 as for items). */
export const DEPARTMENT_PAGE_LIMITS: PageLimits = { defaultPerPage: 50, maxPerPage: 100 };

export async function listDepartments(ctx: RequestContext, args: Args<typeof rules.list>, query: Query = {}) {
  const { clientAccountId, isActive = true, ...window } = parse(rules.list, args);
  await requireAccount(ctx, clientAccountId);
  const where: PrismaNS.DepartmentWhereInput = { clientAccountId };
  if (isActive !== null) where.isActive = isActive;
  return findPage(
    pageWindow(window, DEPARTMENT_PAGE_LIMITS),
    (w) => ctx.db.department.findMany({ ...query, where, orderBy: [{ sequenceNumber: 'asc' }, { id: 'asc' }], ...w }),
    () => ctx.db.department.count({ where }),
  );
}

/** 404 when missing, 403 when it belongs to a client account the caller cannot access. */
export async function getDepartment(ctx: RequestContext, { id }: { id: number }, query: Query = {}) {
  return requireOwned(ctx, 'Department', await ctx.db.department.findUnique({ ...query, where: { id } }));
}

/** Creates an active department with the client account's next sequence number. */
export async function createDepartment(ctx: RequestContext, args: Args<typeof rules.create>, query: Query = {}) {
  const parsed = parse(rules.create, args);
  return inTransaction(ctx, async (tx) => {
    const clientAccountId = args.input.clientAccountId;
    await requireAccount(tx, clientAccountId);
    const { input } = await check(tx, parsed);
    const user = auditUserId(tx);
    const sequenceNumber = await nextSequenceNumber(tx, clientAccountId, 'department');
    return tx.db.department.create({ ...query, data: { ...input, sequenceNumber, createdById: user, updatedById: user } });
  });
}

/**
 * PUT or POST /departments/{id}: only the fields sent change. isActive true reactivates; isActive
 * false on an active department is a deactivation, with the same balance check as DELETE.
 */
export async function updateDepartment(ctx: RequestContext, args: Args<typeof rules.update>, query: Query = {}) {
  const parsed = parse(rules.update, args);
  return inTransaction(ctx, async (tx) => {
    const department = await getDepartment(tx, args);
    const { input } = await check(tx, parsed, { immutable: { clientAccountId: department.clientAccountId } });
    const { clientAccountId: _immutable, ...fields } = input;
    await checkDeactivation(tx, 'DEPARTMENT', department, fields.isActive);
    return tx.db.department.update({ ...query, where: { id: department.id }, data: { ...fields, updatedById: auditUserId(tx) } });
  });
}

/** DELETE deactivates: the record is kept (journal lines refer to it); an inactive department is answered unchanged. */
export async function deactivateDepartment(ctx: RequestContext, args: { id: number }, query: Query = {}) {
  return inTransaction(ctx, async (tx) => {
    const department = await getDepartment(tx, args);
    if (!department.isActive) return getDepartment(tx, args, query);
    await checkDeactivation(tx, 'DEPARTMENT', department, false);
    return tx.db.department.update({ ...query, where: { id: department.id }, data: { isActive: false, updatedById: auditUserId(tx) } });
  });
}
