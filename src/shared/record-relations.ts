import { z } from 'zod';
import type { Reference, ReferenceModel } from './references.ts';
import type { Path } from './validation.ts';

/**
 * `relation_type` + `relation_id`: what a task or a chat thread is about (spec 002: "relation_type
 * (e.g. document, businesspartner)", no values listed). The type is any text of at most 50
 * characters (the column), stored trimmed and lower-cased ("BusinessPartner" → businesspartner);
 * empty is none. Where it names a kind of record this API holds, the record must exist in the same
 * client account (400 otherwise); other types are kept as they are, with their id unchecked
 * (records of systems outside this API).
 */
export const RELATION_TYPES: Readonly<Record<string, ReferenceModel>> = {
  voucher: 'voucher',
  document: 'document',
  businesspartner: 'businessPartner',
  journalentry: 'journalEntry',
  banktransaction: 'bankTransaction',
  reconciliation: 'reconciliation',
  project: 'project',
  department: 'department',
  item: 'item',
  task: 'task',
};

/** A relation_type value: any text of at most 50 characters, trimmed and lower-cased; empty (or null) is none. */
export const relationType = z
  .string()
  .trim()
  .toLowerCase()
  .max(50, 'must be at most 50 characters')
  .transform((v) => v || null)
  .nullish();

/** The issue of a relation that is half given (relation_id without relation_type or the other way round), or undefined. */
export function relationPairIssue(type: unknown, id: unknown): { path: string; message: string } | undefined {
  if (id != null && type == null) return { path: 'relationType', message: 'is required with relation_id' };
  if (type != null && id == null) return { path: 'relationId', message: 'is required with relation_type' };
  return undefined;
}

/** The reference check of a relation whose type names a record of this API (none for other types). */
export function relationReferences(type: string | null | undefined, id: number | null | undefined, prefix: Path = []): Reference[] {
  const model = type ? RELATION_TYPES[type] : undefined;
  return model && id != null ? [{ path: [...prefix, 'relationId'], model, id }] : [];
}
