import { closeSync, openSync, readSync } from 'node:fs';
import { SaftReader, type SaftNode as Node } from './saft-reader.ts';

/**
 * Our own checks of a SAF-T Financial file, for what the XSD cannot check (shared/notes/saft-notes.md
 * "Pitfalls"): its totals are not compared with the lines, and its key/keyref constraints use
 * unqualified XPaths, so they match nothing in a namespaced file. One copy of the rules, incremental
 * (SaftChecker: the master files, then one transaction at a time, then the totals), so the import
 * checks a file of any size in its streaming pass (saft-reader.ts) and the export's checkSaft is the
 * same checker fed the whole text.
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

const add = (map: Map<string, bigint>, key: string, v: bigint) => map.set(key, (map.get(key) ?? 0n) + v);

/**
 * checkSaft's rules, fed as the file is read: `master` once (the MasterFiles, before any
 * transaction), `transaction` per Transaction, `finish` with GeneralLedgerEntries' totals. Holds the
 * master ids, the movements per account and party, and the transaction ids (for "appears twice",
 * the one thing that grows with the file: some 40 MB at 500,000 transactions); never the lines.
 */
export class SaftChecker {
  readonly problems: string[] = [];
  numberOfTransactions = 0;
  numberOfLines = 0;
  private accounts: Node[] = [];
  private accountIds = new Set<string>();
  private parties: { Customer: Node[]; Supplier: Node[] } = { Customer: [], Supplier: [] };
  private customerIds = new Set<string>();
  private supplierIds = new Set<string>();
  private taxCodes = new Set<string>();
  private analysis = new Set<string>();
  private readonly movement = new Map<string, bigint>();
  private readonly partyMovement = new Map<string, bigint>();
  private readonly transactionIds = new Set<string>();
  private debit = 0n;
  private credit = 0n;

  problem(p: string): void {
    if (this.problems.length < MAX_PROBLEMS) this.problems.push(p);
  }

  private amountOf(v: unknown, where: string): bigint {
    const c = cents(v);
    if (c === null) {
      this.problem(`${where}: '${String(v)}' is not an amount with at most two decimals`);
      return 0n;
    }
    return c;
  }

  /** Opening or closing: +debit or −credit, exactly one of them. */
  private balanceOf(n: Node, which: 'Opening' | 'Closing', where: string): bigint {
    const d = n[`${which}DebitBalance`];
    const c = n[`${which}CreditBalance`];
    if ((d === undefined) === (c === undefined)) {
      this.problem(`${where}: needs exactly one of ${which}DebitBalance and ${which}CreditBalance`);
      return 0n;
    }
    return d !== undefined ? this.amountOf(d, `${where} ${which}DebitBalance`) : -this.amountOf(c, `${where} ${which}CreditBalance`);
  }

  private unique(ids: string[], what: string): Set<string> {
    const set = new Set<string>();
    for (const id of ids) {
      if (set.has(id)) this.problem(`${what} ${id} appears twice in MasterFiles`);
      set.add(id);
    }
    return set;
  }

  master(master: Node): void {
    this.accounts = master.GeneralLedgerAccounts?.Account ?? [];
    this.accountIds = this.unique(
      this.accounts.map((a) => String(a.AccountID)),
      'AccountID',
    );
    this.parties = { Customer: (master.Customers?.Customer ?? []) as Node[], Supplier: (master.Suppliers?.Supplier ?? []) as Node[] };
    this.customerIds = this.unique(
      this.parties.Customer.map((c) => String(c.CustomerID)),
      'CustomerID',
    );
    this.supplierIds = this.unique(
      this.parties.Supplier.map((s) => String(s.SupplierID)),
      'SupplierID',
    );
    for (const entry of (master.TaxTable?.TaxTableEntry ?? []) as Node[]) for (const d of (entry.TaxCodeDetails ?? []) as Node[]) this.taxCodes.add(String(d.TaxCode));
    this.analysis = this.unique(
      ((master.AnalysisTypeTable?.AnalysisTypeTableEntry ?? []) as Node[]).map((e) => `${e.AnalysisType}/${e.AnalysisID}`),
      'Analysis type/id',
    );
  }

  transaction(t: Node): void {
    this.numberOfTransactions++;
    const tid = String(t.TransactionID);
    if (this.transactionIds.has(tid)) this.problem(`TransactionID ${tid} appears twice`);
    this.transactionIds.add(tid);
    if (!String(t.Description ?? '').trim()) this.problem(`Transaction ${tid}: empty Description`);
    let balance = 0n;
    for (const l of (t.Line ?? []) as Node[]) {
      this.numberOfLines++;
      const where = `Transaction ${tid} line ${l.RecordID}`;
      const hasDebit = l.DebitAmount !== undefined;
      if (hasDebit === (l.CreditAmount !== undefined)) {
        this.problem(`${where}: needs exactly one of DebitAmount and CreditAmount`);
        continue;
      }
      const a = this.amountOf((hasDebit ? l.DebitAmount : l.CreditAmount)?.Amount, `${where} Amount`);
      if (a < 0n) this.problem(`${where}: negative amount ${show(a)}`);
      const signed = hasDebit ? a : -a;
      if (hasDebit) this.debit += a;
      else this.credit += a;
      balance += signed;
      const account = String(l.AccountID);
      if (!this.accountIds.has(account)) this.problem(`${where}: AccountID ${account} is not in MasterFiles`);
      add(this.movement, account, signed);
      if (l.CustomerID !== undefined) {
        if (!this.customerIds.has(String(l.CustomerID))) this.problem(`${where}: CustomerID ${l.CustomerID} is not in MasterFiles`);
        add(this.partyMovement, `Customer/${l.CustomerID}/${account}`, signed);
      }
      if (l.SupplierID !== undefined) {
        if (!this.supplierIds.has(String(l.SupplierID))) this.problem(`${where}: SupplierID ${l.SupplierID} is not in MasterFiles`);
        add(this.partyMovement, `Supplier/${l.SupplierID}/${account}`, signed);
      }
      if (l.CustomerID !== undefined && l.SupplierID !== undefined) this.problem(`${where}: both CustomerID and SupplierID`);
      for (const tax of (l.TaxInformation ?? []) as Node[]) {
        if (tax.TaxCode !== undefined && !this.taxCodes.has(String(tax.TaxCode))) this.problem(`${where}: TaxCode ${tax.TaxCode} is not in the TaxTable`);
      }
      for (const an of (l.Analysis ?? []) as Node[]) {
        if (!this.analysis.has(`${an.AnalysisType}/${an.AnalysisID}`)) this.problem(`${where}: Analysis ${an.AnalysisType}/${an.AnalysisID} is not in the AnalysisTypeTable`);
      }
    }
    if (balance !== 0n) this.problem(`Transaction ${tid} does not balance: debit − credit = ${show(balance)}`);
  }

  /** The totals against the lines, and opening + movements = closing; `ledger` holds GeneralLedgerEntries' NumberOfEntries, TotalDebit, TotalCredit. */
  finish(ledger: Node): SaftCheckResult {
    const declared = String(ledger.NumberOfEntries ?? '');
    if (declared !== String(this.numberOfTransactions)) this.problem(`NumberOfEntries is ${declared || 'missing'}, but the file has ${this.numberOfTransactions} transactions`);
    const totalDebit = this.amountOf(ledger.TotalDebit, 'TotalDebit');
    const totalCredit = this.amountOf(ledger.TotalCredit, 'TotalCredit');
    if (totalDebit !== this.debit) this.problem(`TotalDebit is ${show(totalDebit)}, but the lines' debits sum to ${show(this.debit)}`);
    if (totalCredit !== this.credit) this.problem(`TotalCredit is ${show(totalCredit)}, but the lines' credits sum to ${show(this.credit)}`);
    if (totalDebit !== totalCredit) this.problem(`TotalDebit ${show(totalDebit)} differs from TotalCredit ${show(totalCredit)}`);

    // balances: opening + movements = closing
    for (const a of this.accounts) {
      const where = `Account ${a.AccountID}`;
      const opening = this.balanceOf(a, 'Opening', where);
      const closing = this.balanceOf(a, 'Closing', where);
      const moved = this.movement.get(String(a.AccountID)) ?? 0n;
      if (opening + moved !== closing) this.problem(`${where}: opening ${show(opening)} + movements ${show(moved)} ≠ closing ${show(closing)}`);
    }
    for (const [kind, list] of Object.entries(this.parties) as ['Customer' | 'Supplier', Node[]][]) {
      for (const p of list) {
        const id = String(p[`${kind}ID`]);
        for (const b of (p.BalanceAccount ?? []) as Node[]) {
          const where = `${kind} ${id} BalanceAccount ${b.AccountID ?? '(no AccountID)'}`;
          if (b.AccountID !== undefined && !this.accountIds.has(String(b.AccountID))) this.problem(`${where}: AccountID is not in MasterFiles`);
          const opening = this.balanceOf(b, 'Opening', where);
          const closing = this.balanceOf(b, 'Closing', where);
          const moved = this.partyMovement.get(`${kind}/${id}/${b.AccountID}`) ?? 0n;
          if (b.AccountID !== undefined && opening + moved !== closing) {
            this.problem(`${where}: opening ${show(opening)} + movements ${show(moved)} ≠ closing ${show(closing)}`);
          }
        }
      }
    }
    return { problems: this.problems, numberOfTransactions: this.numberOfTransactions, numberOfLines: this.numberOfLines };
  }
}

/** The reader's hand-over to the checker: the master files, then each transaction. */
export const checkerHandlers = (checker: SaftChecker) => ({
  onMaster: (_header: Node, master: Node) => checker.master(master),
  onTransaction: (_journal: Node, t: Node) => checker.transaction(t),
});

/** The end of a read: "no AuditFile root element", else the checker's totals and balances. */
export function finishCheck(checker: SaftChecker, reader: SaftReader): SaftCheckResult {
  if (reader.root !== 'AuditFile') return { problems: ['no AuditFile root element'], numberOfTransactions: 0, numberOfLines: 0 };
  return checker.finish(reader.ledger);
}

/** `xml` is the file's text when it starts with '<' (after a BOM or whitespace), else a path (read in pieces). */
export function checkSaft(xmlOrPath: string): SaftCheckResult {
  const checker = new SaftChecker();
  const reader = new SaftReader(checkerHandlers(checker));
  try {
    if (/^\s*(\uFEFF)?\s*</.test(xmlOrPath)) reader.write(xmlOrPath);
    else {
      const fd = openSync(xmlOrPath, 'r');
      try {
        const buffer = Buffer.alloc(1 << 16);
        for (let n; (n = readSync(fd, buffer, 0, buffer.length, null)) > 0; ) reader.write(buffer.subarray(0, n));
      } finally {
        closeSync(fd);
      }
    }
    reader.end();
  } catch (e) {
    return { problems: [`not well-formed XML: ${(e as Error).message}`], numberOfTransactions: 0, numberOfLines: 0 };
  }
  return finishCheck(checker, reader);
}
