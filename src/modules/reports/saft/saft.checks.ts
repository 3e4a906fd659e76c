import { readFileSync } from 'node:fs';
import { XMLParser } from 'fast-xml-parser';

/**
 * Our own checks of a SAF-T Financial file, for what the XSD cannot check (shared/notes/saft-notes.md
 * "Pitfalls"): its totals are not compared with the lines, and its key/keyref constraints use
 * unqualified XPaths, so they match nothing in a namespaced file. Used by the tests and by the admin
 * on a file at hand; it parses the whole file (not for exports of hundreds of MB).
 *
 *   - NumberOfEntries = the number of Transaction elements; TotalDebit and TotalCredit = the sums of
 *     the lines' DebitAmount/CreditAmount, and equal to each other; every transaction balances
 *   - every Line AccountID, CustomerID, SupplierID, TaxInformation TaxCode and Analysis type + id is
 *     in MasterFiles, as is every BalanceAccount's AccountID; no master-file id appears twice
 *   - per account, opening balance + the lines' movements = closing balance; the same per customer
 *     or supplier and BalanceAccount, over the lines that name the party on that account
 */

export interface SaftCheckResult {
  /** empty when every check passed; otherwise one sentence per problem (the first 100) */
  problems: string[];
  numberOfTransactions: number;
  numberOfLines: number;
}

const REPEATED = new Set([
  'Account',
  'Customer',
  'Supplier',
  'BalanceAccount',
  'Address',
  'TaxTableEntry',
  'TaxCodeDetails',
  'AnalysisTypeTableEntry',
  'Journal',
  'Transaction',
  'Line',
  'Analysis',
  'TaxInformation',
]);

type Node = Record<string, any>;

const MAX_PROBLEMS = 100;

/** An amount as øre (bigint): exact, whatever the number of lines. */
function cents(value: unknown): bigint | null {
  const m = typeof value === 'string' ? /^(-)?(\d+)(?:\.(\d{1,2}))?$/.exec(value.trim()) : null;
  if (!m) return null;
  const v = BigInt(m[2]!) * 100n + BigInt((m[3] ?? '').padEnd(2, '0'));
  return m[1] ? -v : v;
}

const show = (c: bigint): string => {
  const sign = c < 0n ? '-' : '';
  const a = c < 0n ? -c : c;
  return `${sign}${a / 100n}.${String(a % 100n).padStart(2, '0')}`;
};

/** `xml` is the file's text when it starts with '<' (after a BOM or whitespace), else a path. */
export function checkSaft(xmlOrPath: string): SaftCheckResult {
  const text = /^\s*(\uFEFF)?\s*</.test(xmlOrPath) ? xmlOrPath : readFileSync(xmlOrPath, 'utf8');
  const problems: string[] = [];
  const problem = (p: string) => {
    if (problems.length < MAX_PROBLEMS) problems.push(p);
  };
  const parser = new XMLParser({
    ignoreAttributes: true,
    removeNSPrefix: true,
    parseTagValue: false,
    trimValues: true,
    isArray: (name) => REPEATED.has(name),
  });
  let doc: Node;
  try {
    doc = parser.parse(text, true) as Node;
  } catch (e) {
    return { problems: [`not well-formed XML: ${(e as Error).message}`], numberOfTransactions: 0, numberOfLines: 0 };
  }
  const file = doc.AuditFile as Node | undefined;
  if (!file) return { problems: ['no AuditFile root element'], numberOfTransactions: 0, numberOfLines: 0 };

  const amountOf = (v: unknown, where: string): bigint => {
    const c = cents(v);
    if (c === null) {
      problem(`${where}: '${String(v)}' is not an amount with at most two decimals`);
      return 0n;
    }
    return c;
  };
  /** Opening or closing: +debit or −credit, exactly one of them. */
  const balanceOf = (n: Node, which: 'Opening' | 'Closing', where: string): bigint => {
    const d = n[`${which}DebitBalance`];
    const c = n[`${which}CreditBalance`];
    if ((d === undefined) === (c === undefined)) {
      problem(`${where}: needs exactly one of ${which}DebitBalance and ${which}CreditBalance`);
      return 0n;
    }
    return d !== undefined ? amountOf(d, `${where} ${which}DebitBalance`) : -amountOf(c, `${where} ${which}CreditBalance`);
  };
  const unique = (ids: string[], what: string): Set<string> => {
    const set = new Set<string>();
    for (const id of ids) {
      if (set.has(id)) problem(`${what} ${id} appears twice in MasterFiles`);
      set.add(id);
    }
    return set;
  };

  // master files
  const master = (file.MasterFiles ?? {}) as Node;
  const accounts: Node[] = master.GeneralLedgerAccounts?.Account ?? [];
  const accountIds = unique(
    accounts.map((a) => String(a.AccountID)),
    'AccountID',
  );
  const parties = { Customer: (master.Customers?.Customer ?? []) as Node[], Supplier: (master.Suppliers?.Supplier ?? []) as Node[] };
  const customerIds = unique(
    parties.Customer.map((c) => String(c.CustomerID)),
    'CustomerID',
  );
  const supplierIds = unique(
    parties.Supplier.map((s) => String(s.SupplierID)),
    'SupplierID',
  );
  const taxCodes = new Set<string>();
  for (const entry of (master.TaxTable?.TaxTableEntry ?? []) as Node[]) for (const d of (entry.TaxCodeDetails ?? []) as Node[]) taxCodes.add(String(d.TaxCode));
  const analysis = unique(
    ((master.AnalysisTypeTable?.AnalysisTypeTableEntry ?? []) as Node[]).map((e) => `${e.AnalysisType}/${e.AnalysisID}`),
    'Analysis type/id',
  );

  // the journal
  const entries = (file.GeneralLedgerEntries ?? {}) as Node;
  const movement = new Map<string, bigint>();
  const partyMovement = new Map<string, bigint>();
  const add = (map: Map<string, bigint>, key: string, v: bigint) => map.set(key, (map.get(key) ?? 0n) + v);
  let transactions = 0;
  let lines = 0;
  let debit = 0n;
  let credit = 0n;
  const transactionIds = new Set<string>();
  for (const journal of (entries.Journal ?? []) as Node[]) {
    for (const t of (journal.Transaction ?? []) as Node[]) {
      transactions++;
      const tid = String(t.TransactionID);
      if (transactionIds.has(tid)) problem(`TransactionID ${tid} appears twice`);
      transactionIds.add(tid);
      if (!String(t.Description ?? '').trim()) problem(`Transaction ${tid}: empty Description`);
      let balance = 0n;
      for (const l of (t.Line ?? []) as Node[]) {
        lines++;
        const where = `Transaction ${tid} line ${l.RecordID}`;
        const hasDebit = l.DebitAmount !== undefined;
        if (hasDebit === (l.CreditAmount !== undefined)) {
          problem(`${where}: needs exactly one of DebitAmount and CreditAmount`);
          continue;
        }
        const a = amountOf((hasDebit ? l.DebitAmount : l.CreditAmount)?.Amount, `${where} Amount`);
        if (a < 0n) problem(`${where}: negative amount ${show(a)}`);
        const signed = hasDebit ? a : -a;
        if (hasDebit) debit += a;
        else credit += a;
        balance += signed;
        const account = String(l.AccountID);
        if (!accountIds.has(account)) problem(`${where}: AccountID ${account} is not in MasterFiles`);
        add(movement, account, signed);
        if (l.CustomerID !== undefined) {
          if (!customerIds.has(String(l.CustomerID))) problem(`${where}: CustomerID ${l.CustomerID} is not in MasterFiles`);
          add(partyMovement, `Customer/${l.CustomerID}/${account}`, signed);
        }
        if (l.SupplierID !== undefined) {
          if (!supplierIds.has(String(l.SupplierID))) problem(`${where}: SupplierID ${l.SupplierID} is not in MasterFiles`);
          add(partyMovement, `Supplier/${l.SupplierID}/${account}`, signed);
        }
        if (l.CustomerID !== undefined && l.SupplierID !== undefined) problem(`${where}: both CustomerID and SupplierID`);
        for (const tax of (l.TaxInformation ?? []) as Node[]) {
          if (tax.TaxCode !== undefined && !taxCodes.has(String(tax.TaxCode))) problem(`${where}: TaxCode ${tax.TaxCode} is not in the TaxTable`);
        }
        for (const an of (l.Analysis ?? []) as Node[]) {
          if (!analysis.has(`${an.AnalysisType}/${an.AnalysisID}`)) problem(`${where}: Analysis ${an.AnalysisType}/${an.AnalysisID} is not in the AnalysisTypeTable`);
        }
      }
      if (balance !== 0n) problem(`Transaction ${tid} does not balance: debit − credit = ${show(balance)}`);
    }
  }
  const declared = String(entries.NumberOfEntries ?? '');
  if (declared !== String(transactions)) problem(`NumberOfEntries is ${declared || 'missing'}, but the file has ${transactions} transactions`);
  const totalDebit = amountOf(entries.TotalDebit, 'TotalDebit');
  const totalCredit = amountOf(entries.TotalCredit, 'TotalCredit');
  if (totalDebit !== debit) problem(`TotalDebit is ${show(totalDebit)}, but the lines' debits sum to ${show(debit)}`);
  if (totalCredit !== credit) problem(`TotalCredit is ${show(totalCredit)}, but the lines' credits sum to ${show(credit)}`);
  if (totalDebit !== totalCredit) problem(`TotalDebit ${show(totalDebit)} differs from TotalCredit ${show(totalCredit)}`);

  // balances: opening + movements = closing
  for (const a of accounts) {
    const where = `Account ${a.AccountID}`;
    const opening = balanceOf(a, 'Opening', where);
    const closing = balanceOf(a, 'Closing', where);
    const moved = movement.get(String(a.AccountID)) ?? 0n;
    if (opening + moved !== closing) problem(`${where}: opening ${show(opening)} + movements ${show(moved)} ≠ closing ${show(closing)}`);
  }
  for (const [kind, list] of Object.entries(parties) as ['Customer' | 'Supplier', Node[]][]) {
    for (const p of list) {
      const id = String(p[`${kind}ID`]);
      for (const b of (p.BalanceAccount ?? []) as Node[]) {
        const where = `${kind} ${id} BalanceAccount ${b.AccountID ?? '(no AccountID)'}`;
        if (b.AccountID !== undefined && !accountIds.has(String(b.AccountID))) problem(`${where}: AccountID is not in MasterFiles`);
        const opening = balanceOf(b, 'Opening', where);
        const closing = balanceOf(b, 'Closing', where);
        const moved = partyMovement.get(`${kind}/${id}/${b.AccountID}`) ?? 0n;
        if (b.AccountID !== undefined && opening + moved !== closing) {
          problem(`${where}: opening ${show(opening)} + movements ${show(moved)} ≠ closing ${show(closing)}`);
        }
      }
    }
  }
  return { problems, numberOfTransactions: transactions, numberOfLines: lines };
}
