import { z } from 'zod';
import { id } from '../../shared/validation.ts';
import { parseBic, PDF_FORM_TYPES } from './banks.ts';

/** 8 or 11 characters (ISO 9362); lower case is upper-cased. */
const bic = z
  .string({ error: (i) => (i.input == null ? 'is required' : 'must be a string') })
  .transform((v, c) => {
    const parsed = parseBic(v);
    if (!parsed) {
      c.addIssue({ code: 'custom', message: 'must be a BIC (ISO 9362): 8 or 11 upper-case letters and digits, e.g. DNBANOKK or DNBANOKKXXX' });
      return z.NEVER;
    }
    return parsed;
  });

const isActive = z.boolean({ error: (i) => (i.input == null ? 'is required' : 'must be true or false') });

/** integration_config: a JSON object (its keys as sent, snake_case), small: it is settings, not data */
const MAX_CONFIG_LENGTH = 10_000;

const integrationConfig = z.unknown().transform((v, c): Record<string, unknown> | null => {
  if (v === null || v === undefined) return null;
  if (typeof v !== 'object' || Array.isArray(v)) {
    c.addIssue({ code: 'custom', message: 'must be an object' });
    return z.NEVER;
  }
  if (JSON.stringify(v).length > MAX_CONFIG_LENGTH) {
    c.addIssue({ code: 'custom', message: `must be at most ${MAX_CONFIG_LENGTH} characters as JSON` });
    return z.NEVER;
  }
  return v as Record<string, unknown>;
});

/** The division details of the bank that requires them (banks.ts): both strings, both required when enabling. */
export const divisionConfig = z.object({
  division_number: z.string({ error: (i) => (i.input == null ? 'is required for this bank' : 'must be a string') }).trim().min(1, 'must not be empty').max(50, 'must be at most 50 characters'),
  division_name: z.string({ error: (i) => (i.input == null ? 'is required for this bank' : 'must be a string') }).trim().min(1, 'must not be empty').max(200, 'must be at most 200 characters'),
});

/** The inputs of the bank, e-invoice and providerb integration operations (the GraphQL fields' arguments). */
export const bankIntegrationRules = {
  list: z.object({ clientAccountId: id.nullish() }),
  status: z.object({ bic, clientAccountId: id }),
  update: z.object({ bic, clientAccountId: id, input: z.object({ isActive, integrationConfig: integrationConfig.optional() }) }),
  pdfForm: z.object({
    bic,
    clientAccountId: id,
    formType: z.string(),
  }),
  einvoiceStatus: z.object({ clientAccountId: id.nullish() }),
  updateEinvoice: z.object({ clientAccountId: id, input: z.object({ isActive }) }),
  providerbStatus: z
    .object({ clientAccountId: id.nullish(), bankAccountId: id.nullish() })
    .refine((a) => a.clientAccountId != null || a.bankAccountId != null, { message: 'client_account_id or bank_account_id is required (at least one)' }),
};

export const isPdfFormType = (v: string): v is (typeof PDF_FORM_TYPES)[number] => (PDF_FORM_TYPES as readonly string[]).includes(v);
