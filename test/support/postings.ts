import type { Prisma } from '../../src/db/database.ts';
import type { DimensionType } from '../../src/generated/prisma/enums.ts';

/**
 * Journal entries written straight to the ledger tables, for tests of rules that read balances
 * (spec 001 "States and transitions": deactivating a project or department). A posted entry needs a
 * sequence number, posted_at and an entry hash (the migration's CHECK); numbers follow the account's
 * highest. The journal entries module posts through its service; these only make rows to read.
 */
export interface TestLine {
  accountId: number;
  debit?: string;
  credit?: string;
  projectId?: number;
  departmentId?: number;
}

export async function postEntry(prisma: Prisma, clientAccountId: number, lines: TestLine[], options: { draft?: boolean } = {}): Promise<number> {
  const draft = options.draft ?? false;
  const last = await prisma.journalEntry.aggregate({ where: { clientAccountId }, _max: { sequenceNumber: true } });
  const entry = await prisma.journalEntry.create({
    data: {
      clientAccountId,
      isDraft: draft,
      ...(draft ? {} : { sequenceNumber: (last._max.sequenceNumber ?? 0) + 1, postedAt: new Date(), entryHash: '0'.repeat(64) }),
      lines: {
        create: lines.map((l, i) => ({
          clientAccountId,
          lineId: i + 1,
          postingDate: new Date('2026-01-15'),
          accountId: l.accountId,
          debit: l.debit ?? '0',
          credit: l.credit ?? '0',
          currencyCode: 'NOK',
          projectId: l.projectId,
          departmentId: l.departmentId,
        })),
      },
    },
  });
  return entry.id;
}

/** Makes `type` a mandatory dimension of the ledger account. */
export async function requireDimension(prisma: Prisma, accountId: number, type: DimensionType): Promise<void> {
  await prisma.accountMandatoryDimension.create({ data: { accountId, dimensionType: type } });
}
