// The classes of the chart of accounts (NS 4102): a rule of the ledger accounts, read by the journal
// entries, the reports, the SAF-T file and the tax returns.

/**
 * Balance-sheet accounts (classes 1 and 2) carry their balance over years; result accounts start each
 * year at zero. The pattern is also bound into SQL (`a.code ~ ${BALANCE_ACCOUNT_PATTERN}`), so the
 * reports and the SAF-T file draw the line in one place.
 */
export const BALANCE_ACCOUNT_PATTERN = '^[12]';
const BALANCE_ACCOUNT = new RegExp(BALANCE_ACCOUNT_PATTERN);
export const isBalanceAccount = (accountCode: string): boolean => BALANCE_ACCOUNT.test(accountCode);
