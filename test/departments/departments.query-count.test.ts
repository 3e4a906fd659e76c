import { describeListBatching } from '../support/list-batching.ts';

// The number of SQL statements of the widest department list must not grow with the page size.
describeListBatching({
  what: 'department',
  path: '/departments',
  with: 'client_account',
  rows: 40,
  seed: (app, t, rows) =>
    app.db.prisma.department.createMany({
      data: Array.from({ length: rows }, (_, i) => ({ clientAccountId: t.account.id, sequenceNumber: i + 1, name: `Q-${i}`, autonomyLevel: i % 2 ? 'FULL' : null })),
    }),
});
