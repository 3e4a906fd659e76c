import { z } from 'zod';
import { Decimal } from '@prisma/client/runtime/client';
import type { EquityTransactionType, ShareClass } from '../../generated/prisma/enums.ts';
import { pageArgs, type PageLimits } from '../../shared/pagination.ts';
import { decimal, id, optionalText, required } from '../../shared/validation.ts';

// spec 002 "Equity transaction" and "Equity": the values, the inputs of every operation, and the pure
// arithmetic of positions, cost basis and the cap table (no database here; the property test checks
// the service against its own model of these rules).

export const SHARE_CLASSES = ['COMMON', 'PREFERRED', 'SERIES_A', 'SERIES_B', 'SERIES_C', 'SEED', 'CONVERTIBLE_NOTE', 'SAFE'] as const satisfies readonly ShareClass[];

export const SHARE_CLASS_LABELS: Record<ShareClass, string> = {
  COMMON: 'Common shares',
  PREFERRED: 'Preferred shares',
  SERIES_A: 'Series A',
  SERIES_B: 'Series B',
  SERIES_C: 'Series C',
  SEED: 'Seed',
  CONVERTIBLE_NOTE: 'Convertible note',
  SAFE: 'SAFE (simple agreement for future equity)',
};

export const EQUITY_TRANSACTION_TYPES = ['ISSUANCE', 'TRANSFER', 'BUYBACK', 'RETIREMENT', 'SPLIT', 'CONVERSION'] as const satisfies readonly EquityTransactionType[];

export const EQUITY_TRANSACTION_TYPE_LABELS: Record<EquityTransactionType, string> = {
  ISSUANCE: 'Issuance',
  TRANSFER: 'Transfer',
  BUYBACK: 'Buyback',
  RETIREMENT: 'Retirement',
  SPLIT: 'Split',
  CONVERSION: 'Conversion',
};

/** What each type's entries do, for the enum's description. */
export const EQUITY_TRANSACTION_TYPE_DESCRIPTIONS: Record<EquityTransactionType, string> = {
  ISSUANCE: 'New shares to a shareholder: one entry +q',
  TRANSFER: 'Shares from one holder to another: −q for the sender, +q for the recipient',
  BUYBACK: "The company buys its own shares from a holder: −q for the seller, +q for the company's own business partner (treasury shares)",
  RETIREMENT: "Treasury shares cancelled: −q from the company's own holding",
  SPLIT: "A holder's position goes from old_quantity to new_quantity: −old and +new, split_ratio new/old reduced",
  CONVERSION: 'Listed by the spec, with no endpoint: no operation writes it',
};

/** spec 002 "GET /equity/transactions": page 1, per_page 100, max 100 (more is a 400). */
export const EQUITY_PAGE_LIMITS: PageLimits = { defaultPerPage: 100, maxPerPage: 100 };

/**
 * The most shares a client account may have in all (every class, every holder, treasury shares
 * included): quantities and totals are GraphQL Ints, so they must fit in 32 bits.
 */
export const MAX_TOTAL_SHARES = 2_147_483_647;

const shareClass = z.enum(SHARE_CLASSES, { error: (i) => (i.input == null ? 'is required' : `must be one of ${SHARE_CLASSES.join(', ')}`) });
const transactionType = z.enum(EQUITY_TRANSACTION_TYPES, { error: () => `must be one of ${EQUITY_TRANSACTION_TYPES.join(', ')}` });
/** Whole shares, at least 1 (spec: "quantities positive"; shares are not divided). */
export const shareQuantity = z
  .number(required)
  .int('must be a whole number of shares')
  .positive('must be positive')
  .max(MAX_TOTAL_SHARES, `must be at most ${MAX_TOTAL_SHARES}`);
/** NOK per share, at most 6 decimals, not negative; optional. */
const pricePerShare = decimal({ precision: 18, scale: 6, min: 0 }).nullish();
const transactionDate = z.date().nullish();
const notes = optionalText(1000);

export const equityRules = {
  list: z.object({
    clientAccountId: id,
    businessPartnerId: id.nullish(),
    shareClass: shareClass.nullish(),
    transactionType: transactionType.nullish(),
    /** inclusive */
    dateFrom: z.date().nullish(),
    /** inclusive */
    dateTo: z.date().nullish(),
    ...pageArgs,
  }),
  issue: z.object({
    input: z.object({ clientAccountId: id, businessPartnerId: id, shareClass, quantity: shareQuantity, pricePerShare, transactionDate, notes }),
  }),
  transfer: z.object({
    input: z.object({ clientAccountId: id, fromBusinessPartnerId: id, toBusinessPartnerId: id, shareClass, quantity: shareQuantity, pricePerShare, transactionDate, notes }),
  }),
  buyback: z.object({
    input: z.object({ clientAccountId: id, fromBusinessPartnerId: id, companyBusinessPartnerId: id, shareClass, quantity: shareQuantity, pricePerShare, transactionDate, notes }),
  }),
  retire: z.object({
    input: z.object({ clientAccountId: id, companyBusinessPartnerId: id, shareClass, quantity: shareQuantity, transactionDate, notes }),
  }),
  split: z.object({
    input: z.object({ clientAccountId: id, businessPartnerId: id, shareClass, oldQuantity: shareQuantity, newQuantity: shareQuantity, transactionDate, notes }),
  }),
  positions: z.object({ clientAccountId: id, businessPartnerId: id.nullish(), shareClass: shareClass.nullish(), includeVoid: z.boolean().nullish() }),
  capTable: z.object({ clientAccountId: id, companyBusinessPartnerId: id }),
};

// ── Arithmetic ────────────────────────────────────────────────────────────────────────────────────

/** Exact enough for any cost × shares product (Prisma's Decimal keeps 20 significant digits). */
const Exact = Decimal.clone({ precision: 60, rounding: Decimal.ROUND_HALF_UP });
const øre = (d: Decimal): Decimal => new Exact(d).toDecimalPlaces(2, Decimal.ROUND_HALF_UP);

const gcd = (a: number, b: number): number => (b === 0 ? a : gcd(b, a % b));

/** A split's ratio new/old reduced by their greatest common divisor: 100 → 300 is 3/1, 4 → 6 is 3/2. */
export function splitRatio(oldQuantity: number, newQuantity: number): { numerator: number; denominator: number } {
  const g = gcd(newQuantity, oldQuantity);
  return { numerator: newQuantity / g, denominator: oldQuantity / g };
}

/** The fields of an entry the arithmetic reads. */
export interface Entry {
  id: number;
  transactionDate: Date;
  transactionGroupId: string;
  businessPartnerId: number;
  shareClass: ShareClass;
  /** signed */
  quantity: number;
  pricePerShare: Decimal | null;
}

/** Entries in the order they take effect: by date, then by id, and within an operation its disposals first. */
export function inEffectOrder<E extends Entry>(entries: readonly E[]): E[] {
  const first = new Map<string, { date: number; id: number }>();
  for (const e of entries) {
    const f = first.get(e.transactionGroupId);
    if (!f || e.id < f.id) first.set(e.transactionGroupId, { date: e.transactionDate.getTime(), id: e.id });
  }
  return [...entries].sort((a, b) => {
    const fa = first.get(a.transactionGroupId)!;
    const fb = first.get(b.transactionGroupId)!;
    return fa.date - fb.date || fa.id - fb.id || Math.sign(a.quantity) - Math.sign(b.quantity) || a.id - b.id;
  });
}

export interface Position {
  businessPartnerId: number;
  shareClass: ShareClass;
  quantity: number;
  /** NOK to the øre */
  costBasis: Decimal;
}

export const positionKey = (businessPartnerId: number, shareClass: ShareClass): string => `${businessPartnerId}:${shareClass}`;

/**
 * Every position the entries make, with its cost basis by weighted average (spec: "cost basis uses
 * weighted average"), kept to the øre at each step:
 *   - an acquisition with a price adds round(q × price);
 *   - an acquisition without one adds what the operation's disposal removed (a transfer or buyback
 *     without a price: the recipient takes the sender's cost; a split keeps its cost), else 0 (an
 *     issuance without a price);
 *   - a disposal of q of a position of Q shares costing C removes round(C × q / Q), all of C when it
 *     empties the position.
 * Rounding is half up. The entries of one operation take effect together, disposals first.
 */
export function positionsOf(entries: readonly Entry[]): Position[] {
  const positions = new Map<string, { businessPartnerId: number; shareClass: ShareClass; quantity: number; cost: Decimal }>();
  const removedByGroup = new Map<string, Decimal>();
  for (const e of inEffectOrder(entries)) {
    const key = positionKey(e.businessPartnerId, e.shareClass);
    let p = positions.get(key);
    if (!p) positions.set(key, (p = { businessPartnerId: e.businessPartnerId, shareClass: e.shareClass, quantity: 0, cost: new Exact(0) }));
    if (e.quantity < 0) {
      const q = -e.quantity;
      const removed = q >= p.quantity ? p.cost : øre(p.cost.times(q).dividedBy(p.quantity));
      p.cost = p.cost.minus(removed);
      removedByGroup.set(e.transactionGroupId, (removedByGroup.get(e.transactionGroupId) ?? new Exact(0)).plus(removed));
    } else {
      const added = e.pricePerShare !== null ? øre(new Exact(e.pricePerShare).times(e.quantity)) : (removedByGroup.get(e.transactionGroupId) ?? new Exact(0));
      p.cost = p.cost.plus(added);
    }
    p.quantity += e.quantity;
    if (p.quantity === 0) p.cost = new Exact(0);
  }
  return [...positions.values()].map((p) => ({ businessPartnerId: p.businessPartnerId, shareClass: p.shareClass, quantity: p.quantity, costBasis: øre(p.cost) }));
}

/**
 * How many shares one holder can give up on `date` without any position of theirs, then or later,
 * going below zero: the least of the holding on that date (after that day's earlier entries) and
 * every later running holding. `entries` are that holder's entries of one class.
 */
export function availableOn(entries: readonly Entry[], date: Date): number {
  let running = 0;
  let available: number | null = null;
  for (const e of inEffectOrder(entries)) {
    if (e.transactionDate.getTime() > date.getTime() && available === null) available = running;
    running += e.quantity;
    if (available !== null) available = Math.min(available, running);
  }
  return available === null ? running : available;
}

/**
 * Percentages that sum to exactly 100.00 (when anything is held): each share of the total in
 * hundredths of a percent rounded down, the hundredths left over given one each to the largest
 * remainders (ties to the earlier in `shares`' order). Returns "33.34"-style strings.
 */
export function largestRemainder(shares: readonly number[], total: number): string[] {
  if (total <= 0) return shares.map(() => '0.00');
  const T = BigInt(total);
  const parts = shares.map((s, i) => ({ i, floor: (BigInt(s) * 10000n) / T, rest: (BigInt(s) * 10000n) % T }));
  let left = 10000n - parts.reduce((sum, p) => sum + p.floor, 0n);
  for (const p of [...parts].sort((a, b) => (b.rest > a.rest ? 1 : b.rest < a.rest ? -1 : a.i - b.i))) {
    if (left <= 0n) break;
    if (p.rest === 0n) continue;
    p.floor += 1n;
    left -= 1n;
  }
  return parts.map((p) => `${p.floor / 100n}.${String(p.floor % 100n).padStart(2, '0')}`);
}

export interface CapTableRow {
  businessPartnerId: number;
  name: string;
  positions: Partial<Record<ShareClass, { shares: number; percentage: string }>>;
  totalShares: number;
  totalPercentage: string;
}

export interface CapTable {
  shareholders: CapTableRow[];
  shareClasses: ShareClass[];
  totalShares: number;
  treasuryShares: Partial<Record<ShareClass, number>>;
}

/**
 * The cap table of a company from its positions: shareholders are the holders of outstanding shares
 * (the holdings of the partners in `companyIds`, the company itself, are treasury shares, shown apart
 * and counted in no total), ordered by
 * total shares (most first), then name, then id; a class's percentages are of that class's
 * outstanding shares, total_percentage of all outstanding shares, each set summing to 100.00.
 */
export function capTableOf(positions: readonly Position[], companyIds: ReadonlySet<number>, names: ReadonlyMap<number, string>): CapTable {
  const treasuryShares: Partial<Record<ShareClass, number>> = {};
  const holders = new Map<number, CapTableRow>();
  for (const p of positions) {
    if (p.quantity <= 0) continue;
    if (companyIds.has(p.businessPartnerId)) {
      treasuryShares[p.shareClass] = (treasuryShares[p.shareClass] ?? 0) + p.quantity;
      continue;
    }
    let row = holders.get(p.businessPartnerId);
    if (!row) holders.set(p.businessPartnerId, (row = { businessPartnerId: p.businessPartnerId, name: names.get(p.businessPartnerId) ?? '', positions: {}, totalShares: 0, totalPercentage: '0.00' }));
    row.positions[p.shareClass] = { shares: p.quantity, percentage: '0.00' };
    row.totalShares += p.quantity;
  }
  const shareholders = [...holders.values()].sort((a, b) => b.totalShares - a.totalShares || a.name.localeCompare(b.name, 'nb') || a.businessPartnerId - b.businessPartnerId);
  const shareClasses = SHARE_CLASSES.filter((c) => shareholders.some((r) => r.positions[c]));
  for (const c of shareClasses) {
    const rows = shareholders.filter((r) => r.positions[c]);
    const outstanding = rows.reduce((sum, r) => sum + r.positions[c]!.shares, 0);
    largestRemainder(rows.map((r) => r.positions[c]!.shares), outstanding).forEach((pct, k) => (rows[k].positions[c]!.percentage = pct));
  }
  const totalShares = shareholders.reduce((sum, r) => sum + r.totalShares, 0);
  largestRemainder(shareholders.map((r) => r.totalShares), totalShares).forEach((pct, k) => (shareholders[k].totalPercentage = pct));
  // each holder's classes in the spec's order
  for (const r of shareholders) r.positions = Object.fromEntries(SHARE_CLASSES.filter((c) => r.positions[c]).map((c) => [c, r.positions[c]!]));
  return { shareholders, shareClasses, totalShares, treasuryShares };
}
