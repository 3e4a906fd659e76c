import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, targets, type TestApp } from '../support/harness.ts';
import { company } from './fixtures.ts';

// spec 002 "Equity": random sequences of issues, transfers, buybacks, retirements and splits over
// REST against a model written here (integer øre arithmetic, none of the module's code). After every
// sequence: every answer was the model's (201, or the 400 it predicts), no position is negative, every
// operation's entries sum as its type says (TRANSFER and BUYBACK 0, ISSUANCE +q, RETIREMENT −q, SPLIT
// new − old), positions and cost bases equal the model's weighted averages, and the cap table's
// percentages sum to exactly 100.00.

const CLASSES = ['COMMON', 'PREFERRED', 'SEED'] as const;
type Cls = (typeof CLASSES)[number];
/** prices as sent, and in millionths of a krone */
const PRICES = [null, '0', '1', '10.5', '0.333333', '123.456789'] as const;
const micro = (p: string): bigint => {
  const [i, f = ''] = p.split('.');
  return BigInt(i) * 1_000_000n + BigInt((f + '000000').slice(0, 6));
};
/** a / b rounded half up, both non-negative */
const divHalfUp = (a: bigint, b: bigint): bigint => (2n * a + b) / (2n * b);

type Op =
  | { kind: 'issue'; to: number; cls: Cls; q: number; price: (typeof PRICES)[number] }
  | { kind: 'transfer'; from: number; to: number; cls: Cls; q: number; price: (typeof PRICES)[number] }
  | { kind: 'buyback'; from: number; cls: Cls; q: number; price: (typeof PRICES)[number] }
  | { kind: 'retire'; cls: Cls; q: number }
  | { kind: 'split'; holder: number; cls: Cls; newQ: number; oldOffset: number };

// holder 0 is the company itself; 1–3 are shareholders
const holder = fc.integer({ min: 0, max: 3 });
const shareholder = fc.integer({ min: 1, max: 3 });
const cls = fc.constantFrom(...CLASSES);
const price = fc.constantFrom(...PRICES);
const op: fc.Arbitrary<Op> = fc.oneof(
  { arbitrary: fc.record({ kind: fc.constant('issue' as const), to: holder, cls, q: fc.integer({ min: 1, max: 60 }), price }), weight: 4 },
  { arbitrary: fc.record({ kind: fc.constant('transfer' as const), from: holder, to: holder, cls, q: fc.integer({ min: 1, max: 40 }), price }), weight: 4 },
  { arbitrary: fc.record({ kind: fc.constant('buyback' as const), from: holder, cls, q: fc.integer({ min: 1, max: 30 }), price }), weight: 2 },
  { arbitrary: fc.record({ kind: fc.constant('retire' as const), cls, q: fc.integer({ min: 1, max: 20 }) }), weight: 2 },
  { arbitrary: fc.record({ kind: fc.constant('split' as const), holder: shareholder, cls, newQ: fc.integer({ min: 1, max: 150 }), oldOffset: fc.constantFrom(0, 0, 0, 1, -1) }), weight: 2 },
);

class Model {
  /** `${holder}:${class}` → shares and cost in øre */
  readonly positions = new Map<string, { q: number; cost: bigint }>();
  /** shares held, without making a position */
  held(h: number, c: Cls): number {
    return this.positions.get(`${h}:${c}`)?.q ?? 0;
  }
  at(h: number, c: Cls) {
    const key = `${h}:${c}`;
    let p = this.positions.get(key);
    if (!p) this.positions.set(key, (p = { q: 0, cost: 0n }));
    return p;
  }
  /** takes q shares away at their average cost; returns the cost removed */
  dispose(h: number, c: Cls, q: number): bigint {
    const p = this.at(h, c);
    const removed = q === p.q ? p.cost : divHalfUp(p.cost * BigInt(q), BigInt(p.q));
    p.q -= q;
    p.cost -= removed;
    return removed;
  }
  acquire(h: number, c: Cls, q: number, cost: bigint): void {
    const p = this.at(h, c);
    p.q += q;
    p.cost += cost;
  }
}
const costOf = (q: number, p: string | null, carried: bigint): bigint => (p === null ? carried : divHalfUp(BigInt(q) * micro(p), 10_000n));

describe.each(targets())('equity property (%s)', (target) => {
  let app: TestApp;
  beforeAll(async () => {
    app = await startTestApp(target);
  });
  afterAll(() => app?.close());

  it('random operation sequences: positions never negative, groups balance by type, cost basis is the weighted average, cap-table percentages sum to 100.00', async () => {
    const seen = new Set<string>();
    await fc.assert(
      fc.asyncProperty(fc.array(op, { minLength: 4, maxLength: 22 }), async (ops) => {
        const c = await company(app);
        const ids = [c.self, await c.partner('Ada'), await c.partner('Bo'), await c.partner('Cy')];
        const model = new Model();
        for (const o of ops) {
          const price = 'price' in o && o.price !== null ? { price_per_share: o.price } : {};
          let res;
          let expected: 'ok' | 'insufficient' | 'refused';
          switch (o.kind) {
            case 'issue':
              res = await c.post('issue', { business_partner_id: ids[o.to], share_class: o.cls, quantity: o.q, ...price });
              expected = o.to === 0 ? 'refused' : 'ok';
              if (expected === 'ok') model.acquire(o.to, o.cls, o.q, costOf(o.q, o.price, 0n));
              break;
            case 'transfer':
              res = await c.post('transfer', { from_business_partner_id: ids[o.from], to_business_partner_id: ids[o.to], share_class: o.cls, quantity: o.q, ...price });
              expected = o.from === o.to ? 'refused' : model.held(o.from, o.cls) < o.q ? 'insufficient' : 'ok';
              if (expected === 'ok') model.acquire(o.to, o.cls, o.q, costOf(o.q, o.price, model.dispose(o.from, o.cls, o.q)));
              break;
            case 'buyback':
              res = await c.post('buyback', { from_business_partner_id: ids[o.from], company_business_partner_id: c.self, share_class: o.cls, quantity: o.q, ...price });
              expected = o.from === 0 ? 'refused' : model.held(o.from, o.cls) < o.q ? 'insufficient' : 'ok';
              if (expected === 'ok') model.acquire(0, o.cls, o.q, costOf(o.q, o.price, model.dispose(o.from, o.cls, o.q)));
              break;
            case 'retire':
              res = await c.post('retire', { company_business_partner_id: c.self, share_class: o.cls, quantity: o.q });
              expected = model.held(0, o.cls) < o.q ? 'insufficient' : 'ok';
              if (expected === 'ok') model.dispose(0, o.cls, o.q);
              break;
            case 'split': {
              // a holder of the class when the one drawn has none (so that splits often succeed)
              const h = model.held(o.holder, o.cls) > 0 ? o.holder : ([1, 2, 3].find((x) => model.held(x, o.cls) > 0) ?? o.holder);
              const held = model.held(h, o.cls);
              const oldQ = Math.max(1, held + o.oldOffset);
              res = await c.post('split', { business_partner_id: ids[h], share_class: o.cls, old_quantity: oldQ, new_quantity: o.newQ });
              expected = held < oldQ ? 'insufficient' : held !== oldQ || o.newQ === oldQ ? 'refused' : 'ok';
              if (expected === 'ok') model.acquire(h, o.cls, o.newQ, model.dispose(h, o.cls, oldQ));
              break;
            }
          }
          seen.add(`${o.kind}:${expected}`);
          const what = `${JSON.stringify(o)} → ${res.status} ${JSON.stringify(res.body)}`;
          if (expected === 'ok') expect(res.status, what).toBe(201);
          else {
            expect(res.status, what).toBe(400);
            expect(res.body.error.startsWith('Insufficient shares: '), what).toBe(expected === 'insufficient');
          }
        }

        // every group sums as its type says
        const list = await c.get(`transactions?client_account_id=${c.t.account.id}&per_page=100`);
        expect(list.status).toBe(200);
        const groups = new Map<string, { type: string; quantities: number[] }>();
        for (const e of list.body.data as { transaction_group_id: string; transaction_type: string; quantity: number }[]) {
          const g = groups.get(e.transaction_group_id) ?? { type: e.transaction_type, quantities: [] };
          g.quantities.push(e.quantity);
          groups.set(e.transaction_group_id, g);
        }
        for (const g of groups.values()) {
          const sum = g.quantities.reduce((s, q) => s + q, 0);
          if (g.type === 'TRANSFER' || g.type === 'BUYBACK') expect(g.quantities.length === 2 && sum === 0, JSON.stringify(g)).toBe(true);
          if (g.type === 'ISSUANCE') expect(g.quantities.length === 1 && sum > 0, JSON.stringify(g)).toBe(true);
          if (g.type === 'RETIREMENT') expect(g.quantities.length === 1 && sum < 0, JSON.stringify(g)).toBe(true);
          if (g.type === 'SPLIT') expect(g.quantities.length === 2 && g.quantities[0] < 0 && g.quantities[1] > 0 && sum === g.quantities[1] + g.quantities[0], JSON.stringify(g)).toBe(true);
        }

        // positions (void ones included) and cost bases are the model's
        const pos = await c.get(`positions?client_account_id=${c.t.account.id}&include_void=true`);
        const got = (pos.body.positions as { business_partner_id: number; share_class: Cls; quantity: number; cost_basis: string }[]).map((p) => [ids.indexOf(p.business_partner_id), p.share_class, p.quantity, p.cost_basis]);
        const want = [...model.positions].map(([key, p]) => {
          const [h, k] = key.split(':');
          return [Number(h), k, p.q, `${p.cost / 100n}.${String(p.cost % 100n).padStart(2, '0')}`];
        });
        const byKey = (x: unknown[], y: unknown[]) => String(x[0]).localeCompare(String(y[0])) || String(x[1]).localeCompare(String(y[1]));
        expect(got.sort(byKey), JSON.stringify(ops)).toEqual(want.sort(byKey));
        expect(got.every((p) => (p[2] as number) >= 0)).toBe(true);

        // the cap table: outstanding shares (treasury apart) and percentages that sum to 100.00
        const cap = (await c.get(`cap-table?client_account_id=${c.t.account.id}&company_business_partner_id=${c.self}`)).body;
        const outstanding = [...model.positions].filter(([key]) => !key.startsWith('0:')).reduce((s, [, p]) => s + p.q, 0);
        expect(cap.total_shares).toBe(outstanding);
        const hundredths = (xs: string[]) => xs.reduce((s, x) => s + Math.round(Number(x) * 100), 0);
        if (cap.shareholders.length) expect(hundredths(cap.shareholders.map((s: { total_percentage: string }) => s.total_percentage))).toBe(10000);
        for (const k of cap.share_classes as Cls[]) {
          const rows = cap.shareholders.filter((s: { positions: Record<string, unknown> }) => s.positions[k]);
          expect(hundredths(rows.map((s: { positions: Record<string, { percentage: string }> }) => s.positions[k].percentage))).toBe(10000);
          for (const s of rows) {
            const exact = (s.positions[k].shares / rows.reduce((t: number, r: { positions: Record<string, { shares: number }> }) => t + r.positions[k].shares, 0)) * 100;
            expect(Math.abs(Number(s.positions[k].percentage) - exact)).toBeLessThan(0.01 + 1e-9);
          }
        }
        for (const k of CLASSES) expect(cap.treasury_shares[k] ?? 0).toBe(model.held(0, k));
      }),
      { seed: 1616, numRuns: 25, endOnFailure: true },
    );
    // the sequences reached every kind of answer
    for (const k of ['issue:ok', 'issue:refused', 'transfer:ok', 'transfer:insufficient', 'buyback:ok', 'buyback:insufficient', 'retire:ok', 'retire:insufficient', 'split:ok', 'split:refused', 'split:insufficient']) {
      expect(seen, k).toContain(k);
    }
  }, 120_000);
});
