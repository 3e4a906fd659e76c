import { Decimal } from '@prisma/client/runtime/client';
import { z } from 'zod';
import { id } from '../../shared/validation.ts';

/**
 * The automatic matcher's rules (spec 001 "drafts come only from an internal automatic matching
 * process"), as pure functions: bank transactions and open items in, proposals out. No database; the
 * service (matcher.service.ts) loads the inputs and writes the proposals as draft reconciliations.
 *
 * Amounts are compared exactly, in øre (bigint), never in floating point.
 */

/** The arguments of runReconciliationMatcher (and runMatcher). */
export const matcherRules = {
  run: z.object({ clientAccountId: id }),
};

export type MatchRule = 'KID' | 'AMOUNT' | 'SUM';

/** An unbooked bank transaction of the client account. */
export interface MatchTransaction {
  id: number;
  bookingDate: Date;
  /** signed: positive in, negative out (the bank account's currency) */
  amount: Decimal;
  /** amount − external_reconciled_amount, signed like amount: what is still to be matched */
  remaining: Decimal;
  currencyCode: string;
  /** the other party: the payor of an incoming, the payee of an outgoing transaction */
  counterpartyName: string | null;
  counterpartyAccount: string | null;
  /** structured references (KID) of the details */
  structuredReferences: string[];
  /** free text of the details and the memo (descriptions, invoice numbers, bank information) */
  text: string;
}

/** A posted, uncancelled journal line on receivables (1500) or payables (2400) with a business partner and an open amount. */
export interface OpenItem {
  journalEntryLineId: number;
  journalEntryId: number;
  kind: 'receivable' | 'payable';
  /** the line's side: an invoice is a debit on receivables, a credit on payables */
  side: 'debit' | 'credit';
  /** |debit − credit| − reconciled_amount, in the accounting currency (> 0) */
  remaining: Decimal;
  currencyCode: string;
  postingDate: Date;
  partnerId: number;
  partnerName: string;
  partnerAccounts: string[];
  /** Document.documentNumber when the entry's relation_type is 'document' */
  documentNumber: string | null;
}

export interface ProposalLine {
  journalEntryLineId: number;
  /** what the proposal settles of the line, in the accounting currency (positive) */
  amount: Decimal;
}

export interface Proposal {
  bankTransactionId: number;
  rule: MatchRule;
  lines: ProposalLine[];
  /** how sure the rule is, 0–100 (KID 100; AMOUNT 80–95; SUM 60–75) */
  score: number;
}

export interface MatchInput {
  transactions: MatchTransaction[];
  openItems: OpenItem[];
  /** already in a non-deleted draft: neither is proposed again (a second run proposes nothing new) */
  taken?: { transactionIds?: Iterable<number>; lineIds?: Iterable<number> };
}

/** Posting date − booking date window, in days, of AMOUNT and SUM: an invoice up to 90 days before the payment, or 7 days after it. */
export const WINDOW_DAYS_BEFORE = 90;
export const WINDOW_DAYS_AFTER = 7;
/** SUM looks at this many candidate items per partner (the oldest) */
export const SUM_MAX_CANDIDATES = 12;

// ---------------------------------------------------------------------------------------------
// KID (kundeidentifikasjonsnummer)

/** MOD10 (Luhn) check digit of `body`. */
export function mod10CheckDigit(body: string): string {
  let sum = 0;
  for (let i = 0; i < body.length; i++) {
    const digit = Number(body[body.length - 1 - i]);
    const product = i % 2 === 0 ? digit * 2 : digit;
    sum += product > 9 ? product - 9 : product;
  }
  return String((10 - (sum % 10)) % 10);
}

/** MOD11 check digit of `body` (weights 2…7 from the right); '-' when the remainder gives 10. */
export function mod11CheckDigit(body: string): string {
  let sum = 0;
  for (let i = 0; i < body.length; i++) sum += Number(body[body.length - 1 - i]) * (2 + (i % 6));
  const check = 11 - (sum % 11);
  return check === 11 ? '0' : check === 10 ? '-' : String(check);
}

/**
 * The KID without its check digit and leading zeros, when `reference` is a KID (2–25 characters,
 * digits, the last a valid MOD10 or MOD11 check digit); otherwise null. Spaces are ignored.
 */
export function kidBody(reference: string): string | null {
  const kid = reference.replace(/\s/g, '');
  if (!/^\d{1,24}[\d-]$/.test(kid)) return null;
  const body = kid.slice(0, -1);
  const check = kid.slice(-1);
  if (check !== mod10CheckDigit(body) && check !== mod11CheckDigit(body)) return null;
  return body.replace(/^0+/, '');
}

/** A document number as KIDs carry it: its digits, leading zeros stripped ('' when it has none). */
export const documentDigits = (documentNumber: string): string => documentNumber.replace(/\D/g, '').replace(/^0+/, '');

/**
 * Does the KID body refer to the document? Norwegian invoices build the KID from the invoice number,
 * often after a customer number: the body equals the number or ends with it (a suffix of at least 3
 * digits, so a short number does not match half the KIDs).
 */
export function kidRefersTo(body: string, documentNumber: string | null): boolean {
  if (!documentNumber || !body) return false;
  const digits = documentDigits(documentNumber);
  if (!digits) return false;
  return body === digits || (digits.length >= 3 && body.endsWith(digits));
}

/** The KID references of a transaction: its structured references plus "KID 1234…" written in its text. */
export function kidReferences(t: Pick<MatchTransaction, 'structuredReferences' | 'text'>): string[] {
  const found = [...t.structuredReferences];
  for (const m of t.text.matchAll(/\bKID\b[\s.:#nr]*([\d ]{2,30}-?)/gi)) found.push(m[1].trim());
  return [...new Set(found.map((r) => r.replace(/\s/g, '')).filter(Boolean))];
}

// ---------------------------------------------------------------------------------------------
// Partners

const COMPANY_SUFFIX = /\s+(asa|as|a s)$/;

/**
 * A name for comparison: lower case, accents and punctuation gone, æ ø å spelt as banks without them
 * do (ae, o, a), the company form (AS, ASA) dropped.
 */
export function normalizeName(name: string): string {
  const plain = name
    .toLowerCase()
    .replace(/æ/g, 'ae')
    .replace(/ø/g, 'o')
    .replace(/å/g, 'a')
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .replace(/[^\p{L}\p{N}]+/gu, ' ')
    .trim();
  return plain.replace(COMPANY_SUFFIX, '').replace(/^(asa|as)\s+/, '').trim();
}

/** Equal once normalised, or one a whole-word prefix of the other (banks cut long names) of at least 6 characters. */
export function namesMatch(a: string | null | undefined, b: string | null | undefined): boolean {
  if (!a || !b) return false;
  const [x, y] = [normalizeName(a), normalizeName(b)];
  if (!x || !y) return false;
  if (x === y) return true;
  const [short, long] = x.length <= y.length ? [x, y] : [y, x];
  return short.length >= 6 && long.startsWith(`${short} `);
}

export const accountDigits = (account: string): string => account.replace(/\D/g, '');

/** 2 when the counterparty's account is one of the partner's, 1 when the names match, 0 otherwise. */
function partnerQuality(t: MatchTransaction, item: OpenItem): number {
  const account = t.counterpartyAccount ? accountDigits(t.counterpartyAccount) : '';
  if (account && item.partnerAccounts.some((a) => accountDigits(a) === account)) return 2;
  return namesMatch(t.counterpartyName, item.partnerName) ? 1 : 0;
}

// ---------------------------------------------------------------------------------------------
// Matching

/** A decimal amount in øre, or null when it has a fraction of an øre (it then matches nothing exactly). */
export function toOre(amount: Decimal): bigint | null {
  const ore = new Decimal(amount).mul(100);
  return ore.isInteger() ? BigInt(ore.toFixed(0)) : null;
}
const fromOre = (ore: bigint): Decimal => new Decimal(ore.toString()).div(100);

const DAY = 86_400_000;
const utcDay = (d: Date) => Math.floor(d.getTime() / DAY);
/** booking − posting in whole days */
const daysAfterPosting = (t: MatchTransaction, item: OpenItem) => utcDay(t.bookingDate) - utcDay(item.postingDate);
const inWindow = (t: MatchTransaction, item: OpenItem) => {
  const days = daysAfterPosting(t, item);
  return days >= -WINDOW_DAYS_AFTER && days <= WINDOW_DAYS_BEFORE;
};

/** An incoming payment settles a customer invoice (receivable, debit), an outgoing one a supplier invoice (payable, credit). */
const settles = (t: MatchTransaction, item: OpenItem, direction: 1 | -1) =>
  item.currencyCode === t.currencyCode &&
  (direction === 1 ? item.kind === 'receivable' && item.side === 'debit' : item.kind === 'payable' && item.side === 'credit');

/** Oldest first; the id breaks ties, so every order is deterministic. */
const byAge = (a: OpenItem, b: OpenItem) => a.postingDate.getTime() - b.postingDate.getTime() || a.journalEntryLineId - b.journalEntryLineId;
const byTransaction = (a: MatchTransaction, b: MatchTransaction) => a.bookingDate.getTime() - b.bookingDate.getTime() || a.id - b.id;

/** Does the transaction's text name the item's document number (as a whole number)? */
function mentionsDocument(t: MatchTransaction, item: OpenItem): boolean {
  const digits = item.documentNumber ? documentDigits(item.documentNumber) : '';
  if (digits.length < 3) return false;
  return new RegExp(`(^|\\D)0*${digits}(\\D|$)`).test(`${t.text} ${t.structuredReferences.join(' ')}`);
}

interface Work {
  transaction: MatchTransaction;
  direction: 1 | -1;
  /** |remaining| in øre */
  ore: bigint;
}

interface Choice {
  proposal: Proposal;
  items: OpenItem[];
}

/**
 * Finds proposals for the transactions, in three passes that each use an item and a transaction at
 * most once: KID, then AMOUNT, then SUM. Ambiguous cases are left out: a human matches them.
 */
export function matchTransactions(input: MatchInput): Proposal[] {
  const takenTransactions = new Set(input.taken?.transactionIds ?? []);
  const usedItems = new Set<number>(input.taken?.lineIds ?? []);
  const items = [...input.openItems].filter((i) => toOre(i.remaining) !== null && toOre(i.remaining)! > 0n).sort(byAge);
  const remainingOre = new Map(items.map((i) => [i.journalEntryLineId, toOre(i.remaining)!]));
  const free = (item: OpenItem) => !usedItems.has(item.journalEntryLineId);

  const pending: Work[] = [];
  for (const t of [...input.transactions].sort(byTransaction)) {
    if (takenTransactions.has(t.id)) continue;
    const ore = toOre(t.remaining);
    if (ore === null || ore === 0n) continue;
    pending.push({ transaction: t, direction: ore > 0n ? 1 : -1, ore: ore > 0n ? ore : -ore });
  }
  const proposals: Proposal[] = [];
  const done = new Set<number>();

  // 1. KID: the reference identifies exactly one open item (of any state), which the payment covers in full or in part.
  for (const w of pending) {
    const t = w.transaction;
    const bodies = kidReferences(t).map(kidBody).filter((b): b is string => b !== null);
    if (!bodies.length) continue;
    const identified = items.filter((i) => settles(t, i, w.direction) && bodies.some((b) => kidRefersTo(b, i.documentNumber)));
    if (!identified.length) continue;
    // a KID that points somewhere keeps the transaction away from the guessing rules, matched or not
    done.add(t.id);
    if (identified.length !== 1) continue;
    const [item] = identified;
    if (!free(item) || w.ore > remainingOre.get(item.journalEntryLineId)!) continue;
    usedItems.add(item.journalEntryLineId);
    proposals.push({ bankTransactionId: t.id, rule: 'KID', score: 100, lines: [{ journalEntryLineId: item.journalEntryLineId, amount: fromOre(w.ore) }] });
  }

  // AMOUNT and SUM run until they find nothing more: a proposal can settle what made another
  // transaction ambiguous, and a second run must find exactly what the first left (idempotent).
  for (let before = -1; before !== proposals.length; ) {
    before = proposals.length;
    // 2. AMOUNT: one item of the same partner with exactly the remaining amount, in the date window.
    const amountChoices: Choice[] = [];
    const ambiguous = new Set<number>();
    for (const w of pending) {
      const t = w.transaction;
      if (done.has(t.id)) continue;
      const ranked = items
        .filter((i) => free(i) && settles(t, i, w.direction) && remainingOre.get(i.journalEntryLineId) === w.ore && inWindow(t, i))
        .map((i) => ({ item: i, quality: partnerQuality(t, i), mentioned: mentionsDocument(t, i) }))
        .filter((c) => c.quality > 0)
        .map((c) => ({ ...c, rank: c.quality * 2 + (c.mentioned ? 1 : 0) }));
      if (!ranked.length) continue;
      const best = Math.max(...ranked.map((c) => c.rank));
      const top = ranked.filter((c) => c.rank === best);
      if (top.length !== 1) {
        ambiguous.add(t.id);
        continue;
      }
      const { item, quality, mentioned } = top[0];
      amountChoices.push({
        items: [item],
        proposal: {
          bankTransactionId: t.id,
          rule: 'AMOUNT',
          score: (quality === 2 ? 90 : 80) + (mentioned ? 5 : 0),
          lines: [{ journalEntryLineId: item.journalEntryLineId, amount: fromOre(w.ore) }],
        },
      });
    }
    for (const c of uncontested(amountChoices)) accept(c);

    // 3. SUM: an incoming payment equal to the sum of two or more open receivables of one partner.
    const sumChoices: Choice[] = [];
    for (const w of pending) {
      const t = w.transaction;
      if (done.has(t.id) || ambiguous.has(t.id) || w.direction !== 1) continue;
      const candidates = items.filter((i) => free(i) && settles(t, i, 1) && inWindow(t, i) && remainingOre.get(i.journalEntryLineId)! < w.ore);
      const quality = new Map(candidates.map((i) => [i.journalEntryLineId, partnerQuality(t, i)]));
      const bestQuality = Math.max(0, ...quality.values());
      if (bestQuality === 0) continue;
      const byPartner = new Map<number, OpenItem[]>();
      for (const i of candidates) {
        if (quality.get(i.journalEntryLineId) !== bestQuality) continue;
        const list = byPartner.get(i.partnerId) ?? [];
        list.push(i);
        byPartner.set(i.partnerId, list);
      }
      const found: OpenItem[][] = [];
      for (const partnerItems of byPartner.values()) {
        const oldest = partnerItems.slice(0, SUM_MAX_CANDIDATES);
        found.push(...subsetsSumming(oldest.map((i) => remainingOre.get(i.journalEntryLineId)!), w.ore, 2 - found.length).map((s) => s.map((k) => oldest[k])));
        if (found.length > 1) break;
      }
      if (found.length !== 1) continue;
      const [subset] = found;
      sumChoices.push({
        items: subset,
        proposal: {
          bankTransactionId: t.id,
          rule: 'SUM',
          score: bestQuality === 2 ? 75 : 65,
          lines: subset.map((i) => ({ journalEntryLineId: i.journalEntryLineId, amount: fromOre(remainingOre.get(i.journalEntryLineId)!) })),
        },
      });
    }
    for (const c of uncontested(sumChoices)) accept(c);
  }

  return proposals.sort((a, b) => a.bankTransactionId - b.bankTransactionId);

  function accept(c: Choice) {
    for (const i of c.items) usedItems.add(i.journalEntryLineId);
    done.add(c.proposal.bankTransactionId);
    proposals.push(c.proposal);
  }
}

/** The choices whose items no other choice of the pass wants (two payments for one invoice: a human decides). */
function uncontested(choices: Choice[]): Choice[] {
  const demand = new Map<number, number>();
  for (const c of choices) for (const i of c.items) demand.set(i.journalEntryLineId, (demand.get(i.journalEntryLineId) ?? 0) + 1);
  return choices.filter((c) => c.items.every((i) => demand.get(i.journalEntryLineId) === 1));
}

/**
 * Subsets (as index lists, at least two members) of `amounts` summing exactly to `target`; stops after
 * `limit` (the caller only needs to know whether there is exactly one). `amounts` has at most
 * SUM_MAX_CANDIDATES members, so the 2^n search is bounded (4096 subsets).
 */
export function subsetsSumming(amounts: bigint[], target: bigint, limit = 2): number[][] {
  const n = Math.min(amounts.length, SUM_MAX_CANDIDATES);
  const found: number[][] = [];
  if (limit <= 0) return found;
  for (let mask = 1; mask < 1 << n; mask++) {
    if ((mask & (mask - 1)) === 0) continue; // one member: that is AMOUNT's case
    let sum = 0n;
    for (let k = 0; k < n; k++) if (mask & (1 << k)) sum += amounts[k];
    if (sum !== target) continue;
    found.push([...Array(n).keys()].filter((k) => mask & (1 << k)));
    if (found.length >= limit) break;
  }
  return found;
}
