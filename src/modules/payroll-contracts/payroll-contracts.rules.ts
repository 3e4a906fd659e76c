import { z } from 'zod';
import { Decimal } from '@prisma/client/runtime/client';
import { pageArgs } from '../../shared/pagination.ts';
import { decimal, flag, id, immutable, nonEmptyText, optionalText, required } from '../../shared/validation.ts';

/** spec 002 "Employment contract": salary_type MONTHLY_FIXED or HOURLY. */
export const SALARY_TYPES = ['MONTHLY_FIXED', 'HOURLY'] as const;
export type SalaryType = (typeof SALARY_TYPES)[number];

export const SALARY_TYPE_DESCRIPTIONS: Record<SalaryType, string> = {
  MONTHLY_FIXED: 'A fixed monthly salary: monthly_salary is required',
  HOURLY: 'Paid by the hour: hourly_rate is required',
};

/** Money (salaries and rates too): Decimal(18, 2), never negative. */
const money = decimal({ precision: 18, scale: 2, min: 0 });
/** A rate as a fraction with four decimals: 0.1020 is 10.2 %. */
const fraction = decimal({ precision: 5, scale: 4, min: 0, max: 1 });

/** A code of the national occupation standard (STYRK-08: 4 digits, the a-melding's yrkeskode 7): digits, at most 10. */
const occupationCode = z
  .string()
  .trim()
  .max(10, 'must be at most 10 characters')
  .refine((v) => v === '' || /^\d+$/.test(v), 'must be a STYRK-08 occupation code: digits only (e.g. 2511, or 2511108 as the a-melding takes it)')
  .transform((v) => v || null)
  .nullish();

/** A required field of the contract in an update: it may be omitted (kept) but not cleared. */
const notCleared = { error: (issue: { input?: unknown }) => (issue.input === null ? 'cannot be cleared (it is required)' : undefined) };

/**
 * The contract's own fields (spec 002 "Employment contract") with the create form's optionality:
 * employment_type, start_date and salary_type required, the rest optional (null or omitted: none).
 * employment_type, employment_form, work_time_arrangement and remuneration_type are text of at most
 * 50 characters, as the spec gives them (their allowed values are "not shown"): the a-melding code
 * lists (a-melding-codes.ts) are the values suggested, not the only ones taken.
 */
const contractFields = {
  employmentType: nonEmptyText(50),
  startDate: z.date(required),
  endDate: z.date().nullish(),
  /** free text (spec: max 50); the a-melding's sluttaarsak codes (END_DATE_REASONS) are what the end report means */
  endDateReason: optionalText(50),
  jobTitle: optionalText(200),
  occupationCode,
  employmentForm: optionalText(50),
  workTimeArrangement: optionalText(50),
  /** 100.00 is full time; 0 (no agreed share of full time, e.g. on call) to 100 */
  workPercentage: decimal({ precision: 5, scale: 2, min: 0, max: 100 }).nullish(),
  /** hours a week: 0 to 168 */
  weeklyHours: decimal({ precision: 5, scale: 2, min: 0, max: 168 }).nullish(),
  remunerationType: optionalText(50),
  salaryType: z.enum(SALARY_TYPES, required),
  lastSalaryChangeDate: z.date().nullish(),
  lastWorkPctChangeDate: z.date().nullish(),
  monthlySalary: money.nullish(),
  hourlyRate: money.nullish(),
  vacationPayRate: fraction.nullish(),
  pensionRate: fraction.nullish(),
  employeePensionRate: fraction.nullish(),
  pensionProviderId: id.nullish(),
  unionDuesAmount: money.nullish(),
  carRegistrationNumber: optionalText(20),
  carListPrice: money.nullish(),
  isPrimaryEmployer: flag,
  isActive: flag,
  isPayrollDefault: flag,
};

/** The fields the rules across fields read, as a whole contract (stored values merged with the changes). */
export interface ContractShape {
  salaryType?: SalaryType | null;
  monthlySalary?: Decimal | null;
  hourlyRate?: Decimal | null;
  startDate?: Date | null;
  endDate?: Date | null;
}

/**
 * The rules across fields of a whole contract (on create the input; on update the stored contract
 * with the changes): MONTHLY_FIXED needs monthly_salary, HOURLY needs hourly_rate; end_date is not
 * before start_date. Each issue names the field to fix.
 */
export function contractIssues(c: ContractShape): { path: string[]; message: string }[] {
  const out: { path: string[]; message: string }[] = [];
  if (c.salaryType === 'MONTHLY_FIXED' && c.monthlySalary == null) out.push({ path: ['monthlySalary'], message: 'is required when salary_type is MONTHLY_FIXED' });
  if (c.salaryType === 'HOURLY' && c.hourlyRate == null) out.push({ path: ['hourlyRate'], message: 'is required when salary_type is HOURLY' });
  if (c.startDate instanceof Date && c.endDate instanceof Date && c.endDate < c.startDate) out.push({ path: ['endDate'], message: 'must not be before start_date' });
  return out;
}

const createInput = z
  .object({ clientAccountId: id, businessPartnerId: id, ...contractFields })
  .superRefine((c, ctx) => {
    for (const issue of contractIssues(c)) ctx.addIssue({ code: 'custom', path: issue.path, message: issue.message });
  });

/** The inputs of every contract operation (the GraphQL fields' arguments). */
export const payrollContractRules = {
  list: z.object({
    clientAccountId: id,
    businessPartnerId: id.nullish(),
    /** omitted or null: active and inactive */
    isActive: z.boolean().nullish(),
    ...pageArgs,
  }),
  create: z.object({ input: createInput }),
  update: z.object({
    id,
    /**
     * Omitted fields keep their value, null clears an optional one; client_account_id and
     * business_partner_id may be sent back unchanged but not changed. The rules across fields are
     * checked on the stored contract merged with the changes (the service).
     */
    input: z
      .object({
        ...contractFields,
        employmentType: z.string(notCleared).trim().min(1, 'must not be empty').max(50, 'must be at most 50 characters').optional(),
        startDate: z.date(notCleared).optional(),
        salaryType: z.enum(SALARY_TYPES, notCleared).optional(),
      })
      .partial()
      .extend({ clientAccountId: immutable, businessPartnerId: immutable }),
  }),
};
