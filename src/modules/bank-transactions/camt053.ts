import { XMLParser } from 'fast-xml-parser';
import { Decimal } from '@prisma/client/runtime/client';
import { ValidationError } from '../../shared/errors.ts';

/**
 * ISO 20022 camt.053 (BankToCustomerStatement), what Norwegian banks deliver: versions
 * camt.053.001.02 and camt.053.001.08 (the elements read here are the same in both). One document may
 * hold several statements; an import takes exactly one (the first `Stmt`, 400 when there are more).
 *
 * Read: GrpHdr/MsgId, Stmt/Id, Stmt/Acct (IBAN or BBAN, currency), FrToDt, the balances OPBD
 * (opening booked) and CLBD (closing booked), and each Ntry: Amt with Ccy, CdtDbtInd, BookgDt,
 * ValDt, AcctSvcrRef (else NtryRef) as the entry reference, AddtlNtryInf as the memo, and each
 * NtryDtls/TxDtls as a detail record (RmtInf/Strd/CdtrRefInf/Ref the KID, Ustrd the description,
 * RltdPties names and accounts, Refs, AmtDtls/InstdAmt).
 */

export const CAMT053_NAMESPACES = ['urn:iso:std:iso:20022:tech:xsd:camt.053.001.02', 'urn:iso:std:iso:20022:tech:xsd:camt.053.001.08'] as const;

export interface Camt053Detail {
  transactionType: string | null;
  archiveReference: string | null;
  structuredReference: string | null;
  bankInformation: string | null;
  amount: Decimal | null;
  currencyCode: string | null;
  description: string | null;
  bookingDate: Date | null;
  valueDate: Date | null;
  invoiceNumber: string | null;
  senderName: string | null;
  senderAccount: string | null;
  receiverName: string | null;
  receiverAccount: string | null;
}

export interface Camt053Entry {
  /** signed: CRDT positive, DBIT negative */
  amount: Decimal;
  currencyCode: string;
  bookingDate: Date;
  valueDate: Date | null;
  entryReference: string | null;
  bankReference: string | null;
  memo: string | null;
  payeeName: string | null;
  payorName: string | null;
  messageId: string | null;
  paymentId: string | null;
  instructionId: string | null;
  endToEndId: string | null;
  instructedAmount: Decimal | null;
  instructedCurrencyCode: string | null;
  details: Camt053Detail[];
}

export interface Camt053Statement {
  namespace: string;
  messageId: string | null;
  statementId: string | null;
  /** the account as the bank names it: IBAN, else the BBAN (Othr/Id) */
  iban: string | null;
  accountNumber: string | null;
  accountCurrencyCode: string | null;
  fromDate: Date | null;
  toDate: Date | null;
  openingBalance: Decimal;
  closingBalance: Decimal;
  entries: Camt053Entry[];
}

type Node = Record<string, unknown>;

const parser = new XMLParser({
  ignoreAttributes: false,
  attributeNamePrefix: '@',
  removeNSPrefix: true,
  parseTagValue: false,
  parseAttributeValue: false,
  trimValues: true,
  processEntities: true,
  // elements that repeat are lists even when there is one
  isArray: (name) => ['Stmt', 'Bal', 'Ntry', 'NtryDtls', 'TxDtls', 'Ustrd', 'Strd', 'AddtlNtryInf'].includes(name),
});

const fail = (message: string): never => {
  throw ValidationError.field('camt053', message);
};

const asNode = (v: unknown): Node | undefined => (v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Node) : undefined);
const list = (v: unknown): Node[] => (Array.isArray(v) ? v : v === undefined ? [] : [v]).map(asNode).filter((n): n is Node => !!n);

/** The node at a path of element names (the first of a list at each step). */
function at(node: unknown, ...path: string[]): unknown {
  let cur: unknown = node;
  for (const p of path) {
    if (Array.isArray(cur)) cur = cur[0];
    cur = asNode(cur)?.[p];
    if (cur === undefined) return undefined;
  }
  return Array.isArray(cur) ? cur[0] : cur;
}

/** Text of an element (an element with attributes has its text in `#text`). */
function text(node: unknown, ...path: string[]): string | null {
  const v = at(node, ...path);
  const t = typeof v === 'string' ? v : typeof asNode(v)?.['#text'] === 'string' ? (asNode(v)!['#text'] as string) : null;
  return t === null || t === '' ? null : t;
}

/** At most `n` characters: a bank's long text is kept, cut to the column. */
const clip = (s: string | null, n: number): string | null => (s === null ? null : s.length > n ? s.slice(0, n) : s);

function amountOf(node: unknown, where: string): { amount: Decimal; currency: string | null } {
  const raw = text(node);
  if (raw === null || !/^\d{1,15}(\.\d{1,5})?$/.test(raw)) fail(`${where}: amount '${String(raw).slice(0, 40)}' is not a decimal number`);
  return { amount: new Decimal(raw!), currency: (asNode(node)?.['@Ccy'] as string | undefined) ?? null };
}

/** A date (Dt) or date-time (DtTm) element as the date at UTC midnight. */
function dateOf(node: unknown, where: string): Date | null {
  const raw = text(node, 'Dt') ?? text(node, 'DtTm');
  if (raw === null) return null;
  const m = /^(\d{4}-\d{2}-\d{2})/.exec(raw);
  const d = m ? new Date(`${m[1]}T00:00:00.000Z`) : new Date(NaN);
  if (Number.isNaN(d.getTime())) fail(`${where}: '${raw.slice(0, 40)}' is not a date`);
  return d;
}

const signed = (amount: Decimal, indicator: string | null, where: string): Decimal => {
  if (indicator === 'CRDT') return amount;
  if (indicator === 'DBIT') return amount.negated();
  return fail(`${where}: CdtDbtInd must be CRDT or DBIT`);
};

/** An account (Id/IBAN or Id/Othr/Id) as text. */
const accountText = (acct: unknown): string | null => text(acct, 'Id', 'IBAN') ?? text(acct, 'Id', 'Othr', 'Id');

/** A party's name (v02: Nm; v08: Pty/Nm). */
const partyName = (party: unknown): string | null => text(party, 'Nm') ?? text(party, 'Pty', 'Nm');

/** The 11-digit Norwegian account number of an IBAN NOkk + 11 digits or of a BBAN; null for anything else. */
export function norwegianAccountNumber(account: string | null): string | null {
  if (!account) return null;
  const compact = account.replace(/[\s.]/g, '').toUpperCase();
  const iban = /^NO\d{2}(\d{11})$/.exec(compact);
  if (iban) return iban[1];
  return /^\d{11}$/.test(compact) ? compact : null;
}

function detailOf(tx: Node, entry: Node, entryAmount: Decimal, incoming: boolean, where: string): Camt053Detail {
  const instructed = at(tx, 'AmtDtls', 'InstdAmt', 'Amt');
  const txAmount = at(tx, 'AmtDtls', 'TxAmt', 'Amt') ?? at(tx, 'Amt');
  const amount = txAmount !== undefined ? amountOf(txAmount, where) : instructed !== undefined ? amountOf(instructed, where) : null;
  const strd = list(at(tx, 'RmtInf') && asNode(at(tx, 'RmtInf'))?.Strd);
  const kid = strd.map((s) => text(s, 'CdtrRefInf', 'Ref')).find((r) => r !== null) ?? null;
  const invoice = strd.map((s) => text(s, 'RfrdDocInf', 'Nb')).find((r) => r !== null) ?? null;
  const ustrd = ((asNode(at(tx, 'RmtInf'))?.Ustrd as unknown[] | undefined) ?? []).map((u) => (typeof u === 'string' ? u : null)).filter(Boolean).join(' ');
  const parties = at(tx, 'RltdPties');
  const debtor = partyName(at(parties, 'Dbtr'));
  const creditor = partyName(at(parties, 'Cdtr'));
  const debtorAccount = accountText(at(parties, 'DbtrAcct'));
  const creditorAccount = accountText(at(parties, 'CdtrAcct'));
  // the bank transaction code of the transaction, else of its entry
  const family = [tx, entry].map((n) => text(n, 'BkTxCd', 'Domn', 'Fmly', 'SubFmlyCd') ?? text(n, 'BkTxCd', 'Prtry', 'Cd')).find((c) => c !== null) ?? null;
  const sign = (d: Decimal) => (incoming ? d : d.negated());
  return {
    transactionType: clip(family, 100),
    archiveReference: clip(text(tx, 'Refs', 'AcctSvcrRef'), 100),
    structuredReference: clip(kid, 100),
    bankInformation: clip(text(tx, 'AddtlTxInf'), 1000),
    amount: amount ? sign(amount.amount) : entryAmount,
    currencyCode: amount?.currency ?? null,
    description: clip(ustrd || null, 1000),
    bookingDate: null,
    valueDate: null,
    invoiceNumber: clip(invoice, 100),
    senderName: clip(debtor, 250),
    senderAccount: clip(debtorAccount, 34),
    receiverName: clip(creditor, 250),
    receiverAccount: clip(creditorAccount, 34),
  };
}

/** Parses a camt.053 document: 400 (field camt053) when it is not one this import reads. */
export function parseCamt053(xml: string): Camt053Statement {
  let doc: Node;
  try {
    doc = parser.parse(xml, true) as Node;
  } catch (e) {
    return fail(`is not well-formed XML: ${(e as Error).message.split('\n')[0].slice(0, 200)}`);
  }
  // the namespace of the root element (the parser drops namespace declarations with their prefixes)
  const rootTag = /<(?:[\w.-]+:)?Document\b[^>]*>/.exec(xml)?.[0];
  if (!rootTag) return fail('is not an ISO 20022 document (no Document element)');
  const namespace = /\bxmlns(?::[\w.-]+)?\s*=\s*["']([^"']*camt[^"']*|urn:iso:std:iso:20022[^"']*)["']/.exec(rootTag)?.[1] ?? '';
  if (!(CAMT053_NAMESPACES as readonly string[]).includes(namespace)) {
    fail(`namespace '${namespace.slice(0, 100)}' is not supported; send ${CAMT053_NAMESPACES.join(' or ')}`);
  }
  const root = asNode(doc.Document);
  if (!root) return fail('has an empty Document element');
  const message = asNode(root.BkToCstmrStmt);
  if (!message) return fail('has no BkToCstmrStmt element: not a camt.053 statement');
  const statements = list(message.Stmt);
  if (statements.length !== 1) fail(`must hold exactly one Stmt (it holds ${statements.length}): import the statements one at a time`);
  const stmt = statements[0];

  const balances = list(stmt.Bal);
  const balance = (code: string): Decimal => {
    const b = balances.find((x) => text(x, 'Tp', 'CdOrPrtry', 'Cd') === code);
    if (!b) return fail(`Stmt has no ${code} balance (${code === 'OPBD' ? 'opening' : 'closing'} booked)`);
    return signed(amountOf(at(b, 'Amt'), `Bal ${code}`).amount, text(b, 'CdtDbtInd'), `Bal ${code}`);
  };

  const entries: Camt053Entry[] = list(stmt.Ntry).map((ntry, i) => {
    const where = `Ntry ${i + 1}`;
    const status = text(ntry, 'Sts') ?? text(ntry, 'Sts', 'Cd');
    if (status !== null && status !== 'BOOK') fail(`${where}: status ${status}; a statement lists booked entries (BOOK) only`);
    const { amount: abs, currency } = amountOf(at(ntry, 'Amt'), where);
    const amount = signed(abs, text(ntry, 'CdtDbtInd'), where);
    const bookingDate = dateOf(at(ntry, 'BookgDt'), where) ?? fail(`${where}: BookgDt is required`);
    const incoming = amount.isPositive();
    const txs = list(at(ntry, 'NtryDtls') && (asNode(at(ntry, 'NtryDtls'))?.TxDtls as unknown));
    const details = txs.map((tx, k) => detailOf(tx, ntry, amount, incoming, `${where} TxDtls ${k + 1}`));
    const first = txs[0];
    const instructed = first ? at(first, 'AmtDtls', 'InstdAmt', 'Amt') : undefined;
    const instructedAmount = instructed !== undefined ? amountOf(instructed, where) : null;
    const memo = ((ntry.AddtlNtryInf as unknown[] | undefined) ?? []).filter((s): s is string => typeof s === 'string').join(' ') || null;
    return {
      amount,
      currencyCode: currency ?? fail(`${where}: Amt has no Ccy`),
      bookingDate,
      valueDate: dateOf(at(ntry, 'ValDt'), where),
      entryReference: clip(text(ntry, 'AcctSvcrRef') ?? text(ntry, 'NtryRef'), 100),
      bankReference: clip(text(ntry, 'NtryRef'), 100),
      memo: clip(memo, 1000),
      // the counterparty: who paid us (incoming) or whom we paid (outgoing)
      payorName: incoming ? (details.find((d) => d.senderName)?.senderName ?? null) : null,
      payeeName: incoming ? null : (details.find((d) => d.receiverName)?.receiverName ?? null),
      messageId: clip(first ? text(first, 'Refs', 'MsgId') : null, 100),
      paymentId: clip(first ? text(first, 'Refs', 'PmtInfId') : null, 100),
      instructionId: clip(first ? text(first, 'Refs', 'InstrId') : null, 100),
      endToEndId: clip(first ? text(first, 'Refs', 'EndToEndId') : null, 100),
      instructedAmount: instructedAmount?.amount ?? null,
      instructedCurrencyCode: instructedAmount?.currency ?? null,
      details: details.map((d) => ({ ...d, bookingDate, valueDate: dateOf(at(ntry, 'ValDt'), where) })),
    };
  });

  const period = at(stmt, 'FrToDt');
  const acct = at(stmt, 'Acct');
  const account = accountText(acct);
  return {
    namespace,
    messageId: text(message, 'GrpHdr', 'MsgId'),
    statementId: text(stmt, 'Id'),
    iban: text(acct, 'Id', 'IBAN'),
    accountNumber: norwegianAccountNumber(account),
    accountCurrencyCode: text(acct, 'Ccy'),
    fromDate: period ? dateOf({ Dt: text(period, 'FrDtTm') }, 'FrToDt') : null,
    toDate: period ? dateOf({ Dt: text(period, 'ToDtTm') }, 'FrToDt') : null,
    openingBalance: balance('OPBD'),
    closingBalance: balance('CLBD'),
    entries,
  };
}
