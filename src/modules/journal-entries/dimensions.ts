import type { DimensionType } from '../../generated/prisma/enums.ts';

/**
 * The dimensions a journal line can carry, by their wire type (spec 001: businesspartner, bankacc,
 * project, department, asset, tag, item — the same `type:id` pairs the reports' `dimensions`
 * parameter uses). Each type is one column of journal_entry_lines naming a row of the client account.
 */
export const DIMENSION_KINDS = {
  businesspartner: { column: 'businessPartnerId', model: 'businessPartner', mandatory: 'BUSINESS_PARTNER' },
  bankacc: { column: 'bankAccountId', model: 'bankAccount', mandatory: 'BANK_ACCOUNT' },
  project: { column: 'projectId', model: 'project', mandatory: 'PROJECT' },
  department: { column: 'departmentId', model: 'department', mandatory: 'DEPARTMENT' },
  asset: { column: 'assetId', model: 'asset', mandatory: 'ASSET' },
  tag: { column: 'tagId', model: 'tag', mandatory: 'TAG' },
  item: { column: 'itemId', model: 'item', mandatory: 'ITEM' },
} as const satisfies Record<string, { column: string; model: string; mandatory: DimensionType }>;

export type DimensionKind = keyof typeof DIMENSION_KINDS;
export type DimensionColumn = (typeof DIMENSION_KINDS)[DimensionKind]['column'];

export const DIMENSION_KIND_NAMES = Object.keys(DIMENSION_KINDS) as DimensionKind[];

/** The line dimension that satisfies a mandatory dimension of an account (EMPLOYEE: a business partner who is an employee). */
export const SATISFIED_BY: Record<DimensionType, DimensionKind> = {
  PROJECT: 'project',
  DEPARTMENT: 'department',
  BUSINESS_PARTNER: 'businesspartner',
  EMPLOYEE: 'businesspartner',
  BANK_ACCOUNT: 'bankacc',
  ASSET: 'asset',
  TAG: 'tag',
  ITEM: 'item',
};

/** The line dimension type of a GraphQL DimensionType value (the value `mandatory` names), e.g. BUSINESS_PARTNER → businesspartner. */
export const KIND_OF_TYPE = Object.fromEntries(DIMENSION_KIND_NAMES.map((k) => [DIMENSION_KINDS[k].mandatory, k])) as Partial<Record<DimensionType, DimensionKind>>;

/** The GraphQL DimensionType value of a line dimension type, e.g. businesspartner → BUSINESS_PARTNER. */
export const typeOfKind = (kind: DimensionKind): DimensionType => DIMENSION_KINDS[kind].mandatory;

/**
 * A line dimension type as the rules read it: GraphQL's DimensionType value mapped to the line type it
 * names (BUSINESS_PARTNER → businesspartner); anything else (the line type itself from a job or
 * service caller, EMPLOYEE, garbage) as given, for the rules' enum to accept or reject.
 */
export const asLineKind = (value: unknown): unknown => (typeof value === 'string' && KIND_OF_TYPE[value as DimensionType]) || value;

/** A line's dimension columns as the wire's `{type, id}` list, in the order of DIMENSION_KINDS. */
export function lineDimensions(line: Partial<Record<DimensionColumn, number | null>>): { type: DimensionKind; id: number }[] {
  const out: { type: DimensionKind; id: number }[] = [];
  for (const type of DIMENSION_KIND_NAMES) {
    const id = line[DIMENSION_KINDS[type].column];
    if (id != null) out.push({ type, id });
  }
  return out;
}
