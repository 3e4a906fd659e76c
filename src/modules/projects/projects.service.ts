import type { Prisma as PrismaNS } from '../../generated/prisma/client.ts';
import { auditUserId, inTransaction, type RequestContext } from '../../shared/context.ts';
import { checkDeactivation } from '../../shared/dimension-balances.ts';
import { findPage, pageWindow, type PageLimits } from '../../shared/pagination.ts';
import { nextSequenceNumber } from '../../shared/sequence.ts';
import { requireAccount, requireOwned } from '../../shared/tenancy.ts';
import { check, checkUnique, parse, validate, type Args } from '../../shared/validation.ts';
import { projectRules as rules } from './projects.rules.ts';

type Query = { include?: PrismaNS.ProjectInclude; select?: PrismaNS.ProjectSelect };

/** spec 001 "Projects": per_page 50 by default (the spec names no maximum; 100 as for items). */
export const PROJECT_PAGE_LIMITS: PageLimits = { defaultPerPage: 50, maxPerPage: 100 };

export async function listProjects(ctx: RequestContext, args: Args<typeof rules.list>, query: Query = {}) {
  const { clientAccountId, isActive = true, name, ...window } = parse(rules.list, args);
  await requireAccount(ctx, clientAccountId);
  const where: PrismaNS.ProjectWhereInput = { clientAccountId };
  if (isActive !== null) where.isActive = isActive;
  if (name?.trim()) where.name = { contains: name.trim(), mode: 'insensitive' };
  return findPage(
    pageWindow(window, PROJECT_PAGE_LIMITS),
    (w) => ctx.db.project.findMany({ ...query, where, orderBy: [{ sequenceNumber: 'asc' }, { id: 'asc' }], ...w }),
    () => ctx.db.project.count({ where }),
  );
}

/** 404 when missing, 403 when it belongs to a client account the caller cannot access. */
export async function getProject(ctx: RequestContext, { id }: { id: number }, query: Query = {}) {
  return requireOwned(ctx, 'Project', await ctx.db.project.findUnique({ ...query, where: { id } }));
}

/** spec 001 "Projects": names are unique within a client account. */
const uniqueName = (clientAccountId: number, name: string | undefined, exceptId?: number) =>
  ({ model: 'project', what: 'project', clientAccountId, field: 'name', value: name, exceptId }) as const;

/** Creates an active project with the client account's next sequence number. */
export async function createProject(ctx: RequestContext, args: Args<typeof rules.create>, query: Query = {}) {
  const parsed = parse(rules.create, args);
  return inTransaction(ctx, async (tx) => {
    const clientAccountId = args.input.clientAccountId;
    await requireAccount(tx, clientAccountId);
    const { input } = await check(tx, parsed, {
      check: ({ input }, _found, issues) => checkUnique(tx, issues, uniqueName(clientAccountId, input.name)),
    });
    const user = auditUserId(tx);
    const sequenceNumber = await nextSequenceNumber(tx, clientAccountId, 'project');
    return tx.db.project.create({ ...query, data: { ...input, sequenceNumber, createdById: user, updatedById: user } });
  });
}

/** Only the fields sent change; isActive false on an active project is a deactivation (balances checked). */
export async function updateProject(ctx: RequestContext, args: Args<typeof rules.update>, query: Query = {}) {
  const parsed = parse(rules.update, args);
  return inTransaction(ctx, async (tx) => {
    const project = await getProject(tx, args);
    const { input } = await check(tx, parsed, {
      immutable: { clientAccountId: project.clientAccountId },
      check: ({ input }, _found, issues) => checkUnique(tx, issues, uniqueName(project.clientAccountId, input.name, project.id)),
    });
    const { clientAccountId: _immutable, ...fields } = input;
    await checkDeactivation(tx, 'PROJECT', project, fields.isActive);
    return tx.db.project.update({ ...query, where: { id: project.id }, data: { ...fields, updatedById: auditUserId(tx) } });
  });
}

/** DELETE deactivates: the record is kept (journal lines refer to it); an inactive project is answered unchanged. */
export async function deactivateProject(ctx: RequestContext, args: { id: number }, query: Query = {}) {
  return inTransaction(ctx, async (tx) => {
    const project = await getProject(tx, args);
    if (!project.isActive) return getProject(tx, args, query);
    await checkDeactivation(tx, 'PROJECT', project, false);
    return tx.db.project.update({ ...query, where: { id: project.id }, data: { isActive: false, updatedById: auditUserId(tx) } });
  });
}
