import type { RequestContext } from './context.ts';
import type { Issues, Path } from './validation.ts';

/**
 * Reference checks for a whole input at once: every id an input names (a unit, a tax code, the
 * account of line 37) is looked up with ONE query per referenced model, however many lines name
 * one. A tenant-owned row must belong to the input's client account; a row of another account reads
 * as missing, so the answer never tells whether another tenant's row exists.
 */
const MODELS = {
  unit: { what: 'unit', key: 'id', tenant: false },
  currency: { what: 'currency', key: 'code', tenant: false },
  taxCode: { what: 'tax code', key: 'id', tenant: true },
  account: { what: 'ledger account', key: 'id', tenant: true },
  item: { what: 'item', key: 'id', tenant: true },
  businessPartner: { what: 'business partner', key: 'id', tenant: true },
  project: { what: 'project', key: 'id', tenant: true },
  bankAccount: { what: 'bank account', key: 'id', tenant: true },
  department: { what: 'department', key: 'id', tenant: true },
  asset: { what: 'asset', key: 'id', tenant: true },
  tag: { what: 'tag', key: 'id', tenant: true },
  journalEntry: { what: 'journal entry', key: 'id', tenant: true },
  voucher: { what: 'voucher', key: 'id', tenant: true },
  document: { what: 'document', key: 'id', tenant: true },
  bankTransaction: { what: 'bank transaction', key: 'id', tenant: true },
  reconciliation: { what: 'reconciliation', key: 'id', tenant: true },
  task: { what: 'task', key: 'id', tenant: true },
} as const;

export type ReferenceModel = keyof typeof MODELS;
type Key = number | string;

export interface Reference {
  /** the field that names the row, e.g. ['lines', 3, 'accountId'] */
  path: Path;
  model: ReferenceModel;
  /** the id (or, for currencies, the code); null and undefined are not references */
  id: Key | null | undefined;
  /** columns the caller needs from the row besides its key (fetched in the same query) */
  select?: Record<string, true>;
}

/** The rows the references found (those that passed), by model and key. */
export interface FoundReferences {
  get<T = Record<string, unknown>>(model: ReferenceModel, id: Key | null | undefined): T | undefined;
}

/** "<what> <id> does not exist in client account <id>" (or just "does not exist" for system-wide rows). */
function missingMessage(model: ReferenceModel, id: Key, clientAccountId: number | null): string {
  const spec = MODELS[model];
  const shown = typeof id === 'string' ? `'${id}'` : String(id);
  return spec.tenant ? `${spec.what} ${shown} does not exist in client account ${clientAccountId}` : `${spec.what} ${shown} does not exist`;
}

type Delegate = { findMany(args: object): Promise<Record<string, unknown>[]> };

/** Maps fields of `data` to the model they reference: `fieldReferences(input, { salesUnitId: 'unit' })`. */
export function fieldReferences(
  data: Record<string, unknown> | undefined,
  fields: Record<string, ReferenceModel>,
  prefix: Path = [],
): Reference[] {
  return Object.entries(fields).map(([field, model]) => ({ path: [...prefix, field], model, id: data?.[field] as Key | null | undefined }));
}

/**
 * Looks every reference up (one findMany per model), records an issue at the path of each that is
 * missing or belongs to another client account, and returns the rows found.
 */
export async function checkReferences(
  ctx: RequestContext,
  clientAccountId: number | null,
  references: readonly Reference[],
  issues: Issues,
): Promise<FoundReferences> {
  const byModel = new Map<ReferenceModel, Reference[]>();
  for (const ref of references) {
    if (ref.id == null) continue;
    const list = byModel.get(ref.model) ?? [];
    list.push(ref);
    byModel.set(ref.model, list);
  }
  const found = new Map<string, Record<string, unknown>>();
  await Promise.all(
    [...byModel].map(async ([model, refs]) => {
      const spec = MODELS[model];
      const select: Record<string, true> = Object.assign({ [spec.key]: true }, spec.tenant ? { clientAccountId: true } : {}, ...refs.map((r) => r.select ?? {}));
      const keys = [...new Set(refs.map((r) => r.id as Key))];
      const rows = await (ctx.db[model] as unknown as Delegate).findMany({ where: { [spec.key]: { in: keys } }, select });
      for (const row of rows) {
        if (!spec.tenant || row.clientAccountId === clientAccountId) found.set(`${model}:${String(row[spec.key])}`, row);
      }
    }),
  );
  for (const ref of references) {
    if (ref.id != null && !found.has(`${ref.model}:${String(ref.id)}`)) issues.add(ref.path, missingMessage(ref.model, ref.id, clientAccountId));
  }
  return { get: <T>(model: ReferenceModel, id: Key | null | undefined) => (id == null ? undefined : (found.get(`${model}:${String(id)}`) as T | undefined)) };
}
