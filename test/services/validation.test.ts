import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createItemCollection, createItemCollectionEntry } from '../../src/modules/item-collections/item-collections.service.ts';
import type { FieldIssue } from '../../src/shared/errors.ts';
import { startTestApp, targets, type TestApp } from '../support/harness.ts';
import type { Tenant } from '../support/seed.ts';

// src/shared/validation.ts: the service parses its input first (every shape issue in one
// ValidationError, nothing else checked then), then collects the immutable fields, every reference and
// the checks that need the database into one ValidationError, each issue naming its field — a client
// learns every problem of each kind at once, with camelCase paths (snake_case over REST).
describe.each(targets())('validation collects every issue (%s)', (target) => {
  let app: TestApp;
  let t: Tenant;
  let other: Tenant;
  let piece: number;
  let collectionId: number;

  beforeAll(async () => {
    app = await startTestApp(target);
    [t, other] = [await app.seed.tenant(), await app.seed.tenant()];
    piece = await app.seed.unitId('H87');
    collectionId = (await createItemCollection(app.seed.contextOf(t.user), { input: { clientAccountId: t.account.id, collectionType: 'TEMPLATE' } })).id;
  });
  afterAll(() => app?.close());

  const paths = (issues: FieldIssue[]) => issues.map((i) => i.path.join('.')).sort();

  it('a service call answers the shape and cross-field problems of its input first, alone (as over GraphQL and REST); then every reference problem of a well-formed input together', async () => {
    const theirTaxCode = await other.taxCode('3');
    const ctx = app.seed.contextOf(t.user);
    const references = { unitId: 99999999, taxCodeId: theirTaxCode, currencyCode: 'XYZ' }; // no such unit, another client account's, well-formed but unknown
    const shape = await createItemCollectionEntry(ctx, {
      input: {
        itemCollectionId: collectionId,
        quantity: '1.1234567', // 7 decimals
        price: '100',
        ...references,
        description: 'x'.repeat(1001),
        recurringInterval: 0, // months, at least 1
        recurringStartDate: new Date('2026-06-01'),
        recurringEndDate: new Date('2026-05-31'), // before the start
      },
    }).catch((e: unknown) => e);
    expect(shape).toMatchObject({ code: 'common.validation_error', status: 400 });
    expect(paths((shape as { issues: FieldIssue[] }).issues)).toEqual(['description', 'quantity', 'recurringEndDate', 'recurringInterval']);
    expect((shape as { issues: FieldIssue[] }).issues).toContainEqual({ path: ['quantity'], message: 'must have at most 6 decimals' });

    const stored = await createItemCollectionEntry(ctx, { input: { itemCollectionId: collectionId, quantity: '1', price: '100', ...references } }).catch((e: unknown) => e);
    expect(stored).toMatchObject({ code: 'common.validation_error', status: 400 });
    const issues = (stored as { issues: FieldIssue[] }).issues;
    expect(paths(issues)).toEqual(['currencyCode', 'taxCodeId', 'unitId']);
    expect(issues).toEqual(
      expect.arrayContaining([
        { path: ['unitId'], message: 'unit 99999999 does not exist' },
        { path: ['taxCodeId'], message: `tax code ${theirTaxCode} does not exist in client account ${t.account.id}` },
        { path: ['currencyCode'], message: "currency 'XYZ' does not exist" },
      ]),
    );
    expect(await app.db.prisma.itemCollectionEntry.count({ where: { itemCollectionId: collectionId } })).toBe(0);
  });

  it('GraphQL answers one error with every issue in extensions.issues', async () => {
    const res = await app.gql(
      t.user.token,
      `mutation($input: CreateItemCollectionEntryInput!) { createItemCollectionEntry(input: $input) { id } }`,
      { input: { itemCollectionId: collectionId, quantity: '1', price: '1', unitId: 99999999, taxCodeId: await other.taxCode('3'), itemId: 99999999, projectId: 99999999 } },
    );
    expect(res.errors).toHaveLength(1);
    expect(res.errors?.[0].extensions?.code).toBe('common.validation_error');
    expect(paths(res.errors?.[0].extensions?.issues)).toEqual(['itemId', 'projectId', 'taxCodeId', 'unitId']);
  });

  it('REST names every field in snake_case in the one error message', async () => {
    const created = await app.http('POST', `/api/v2/item-collections/${collectionId}/entries`, {
      token: t.user.token,
      body: { quantity: '2', price: '100', unit_id: piece, tax_code_id: await t.taxCode('3') },
    });
    expect(created.status).toBe(201);
    const put = (body: Record<string, unknown>) =>
      app.http('PUT', `/api/v2/item-collections/${collectionId}/entries/${created.body.id}`, { token: t.user.token, body });
    // Shape problems, a rule across fields among them, are all found by the arguments' schema, which the service parses first ...
    const shape = await put({ quantity: '1.1234567', recurring_interval: 0, recurring_start_date: '2026-06-01', recurring_end_date: '2026-05-31' });
    expect(shape.status).toBe(400);
    expect(shape.body.error.split('; ').sort()).toEqual([
      'quantity: must have at most 6 decimals',
      'recurring_end_date: must not be before the recurring start date',
      'recurring_interval: must be a whole number of months, at least 1',
    ]);
    // ... and the service finds every reference and stored-state problem of a well-formed input together.
    expect((await put({ recurring_start_date: '2026-06-01' })).status).toBe(202);
    const stored = await put({ unit_id: 99999999, business_partner_id: 99999999, recurring_end_date: '2026-05-31' });
    expect(stored.status).toBe(400);
    expect(stored.body.error.split('; ').sort()).toEqual([
      `business_partner_id: business partner 99999999 does not exist in client account ${t.account.id}`,
      'recurring_end_date: must not be before the recurring start date',
      'unit_id: unit 99999999 does not exist',
    ]);
  });
});
