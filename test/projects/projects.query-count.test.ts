import { describeListBatching } from '../support/list-batching.ts';

// The number of SQL statements of the widest project list must not grow with the page size.
describeListBatching({
  what: 'project',
  path: '/projects',
  with: 'client_account',
  rows: 40,
  seed: (app, t, rows) =>
    app.db.prisma.project.createMany({
      data: Array.from({ length: rows }, (_, i) => ({ clientAccountId: t.account.id, sequenceNumber: i + 1, name: `Q-${i}`, createdById: t.user.id })),
    }),
});
