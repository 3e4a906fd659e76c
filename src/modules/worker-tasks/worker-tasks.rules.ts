import { createHash } from 'node:crypto';
import { z } from 'zod';
import { DOCUMENT_TYPES } from '../documents/documents.rules.ts';
import { digitsOnly, isValidOrganizationNumber } from '../../shared/norwegian-ids.ts';
import { orderByNames, pageArgs, type PageLimits } from '../../shared/pagination.ts';
import { decimal, evenWithIssues, id, nonEmptyText, optionalText, required } from '../../shared/validation.ts';

// ── Values (spec 002 "Worker task and result": task_type's values are not listed, "The structure of
// data per task type: not shown") ──

export const WORKER_TASK_STATUSES = ['PENDING', 'COMPLETED', 'CANCELLED'] as const;
export type WorkerTaskStatusCode = (typeof WORKER_TASK_STATUSES)[number];

/**
 * The relation_types that name a record of this API: its relation_id is looked up in that table, and
 * the record decides the task's client account. The names follow the other relation_type fields of
 * the API (lower-case; `businesspartner` as chat threads and the dimension types spell it). Any other
 * relation_type is a word of the client's, kept as sent (lower-cased) with its id unchecked.
 */
export const RELATION_TYPES = ['voucher', 'document', 'bank_transaction', 'journal_entry', 'businesspartner'] as const;
export type RelationType = (typeof RELATION_TYPES)[number];
export const isRecordRelation = (type: string | null | undefined): type is RelationType => (RELATION_TYPES as readonly (string | null | undefined)[]).includes(type);

/** At most this many results per task (several users, and a user may answer again): a bound on the `results` relation. */
export const MAX_RESULTS_PER_TASK = 50;

/** A data field that is not one of the type's. */
const strictData = <S extends z.ZodRawShape>(shape: S, taskType: string) =>
  z
    .record(z.string(), z.unknown(), { error: 'must be a JSON object' })
    .superRefine((value, ctx) => {
      for (const key of Object.keys(value)) {
        if (!Object.hasOwn(shape, key)) ctx.addIssue({ code: 'custom', path: [key], message: `is not a field of ${taskType} data; fields: ${Object.keys(shape).join(', ')}` });
      }
    })
    .pipe(z.object(shape));

/** YYYY-MM-DD, a real calendar date. */
const calendarDate = z
  .string()
  .trim()
  .refine((v) => {
    const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(v);
    if (!m) return false;
    const d = new Date(Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3])));
    return d.getUTCMonth() === Number(m[2]) - 1 && d.getUTCDate() === Number(m[3]);
  }, 'must be a calendar date YYYY-MM-DD');

/** An optional data field: absent and null are the same answer (null), so they agree. */
const orNull = <T extends z.ZodType>(schema: T) => schema.nullish().transform((v) => v ?? null);

const yesNo = (field: string) => z.boolean({ error: (i) => (i.input === undefined ? 'is required' : `${field} must be true or false`) });

/**
 * The service's own task types: which records a task is about, the shape of a result's `data`
 * (snake_case keys, normalised so equal answers are equal JSON) and how many users must submit the
 * same data for the consensus that completes the task. task_type is free text (spec 002 lists no
 * values): a type not named here is the client's own, with no rule on its relations or its data
 * (any JSON object) and no consensus — results leave it PENDING, as the state table says.
 */
export const WORKER_TASK_TYPES = {
  VOUCHER_CLASSIFICATION: {
    description: 'Which document type is the voucher? data: {document_type} (one of the 18 document type codes).',
    relation: ['voucher'],
    relationRequired: true,
    secondary: null,
    requiredAgreement: 2,
    data: strictData(
      {
        document_type: z
          .string(required)
          .trim()
          .toUpperCase()
          .pipe(z.enum(DOCUMENT_TYPES, { error: () => `must be a document type: ${DOCUMENT_TYPES.join(', ')}` })),
      },
      'VOUCHER_CLASSIFICATION',
    ),
  },
  VOUCHER_DATA_EXTRACTION: {
    description:
      'What does the voucher say? data: {document_date, due_date (YYYY-MM-DD), gross_amount (decimal string, 2 decimals), currency_code (ISO 4217), organization_number (the seller, 9 digits), document_number, kid}; every field optional, null when not on the voucher.',
    relation: ['voucher'],
    relationRequired: true,
    secondary: null,
    requiredAgreement: 2,
    data: strictData(
      {
        document_date: orNull(calendarDate),
        due_date: orNull(calendarDate),
        gross_amount: orNull(decimal({ precision: 18, scale: 2 }).transform((d) => d.toFixed(2))),
        currency_code: orNull(z.string().trim().regex(/^[A-Za-z]{3}$/, 'must be an ISO 4217 currency code of three letters').toUpperCase()),
        organization_number: orNull(
          z
            .string()
            .transform(digitsOnly)
            .refine(isValidOrganizationNumber, 'must be a valid 9-digit Norwegian organization number'),
        ),
        document_number: orNull(z.string().trim().min(1, 'must not be empty').max(100, 'must be at most 100 characters')),
        kid: orNull(z.string().transform(digitsOnly).pipe(z.string().regex(/^\d{2,25}$/, 'must be 2 to 25 digits'))),
      },
      'VOUCHER_DATA_EXTRACTION',
    ),
  },
  VOUCHER_DUPLICATE_CHECK: {
    description: 'Is the voucher (relation) a duplicate of the other voucher (secondary relation)? data: {is_duplicate: boolean}.',
    relation: ['voucher'],
    relationRequired: true,
    secondary: { types: ['voucher'], required: true },
    requiredAgreement: 2,
    data: strictData({ is_duplicate: yesNo('is_duplicate') }, 'VOUCHER_DUPLICATE_CHECK'),
  },
  BANK_TRANSACTION_MATCH: {
    description: 'Does the bank transaction (relation) pay the voucher or document (secondary relation)? data: {is_match: boolean}.',
    relation: ['bank_transaction'],
    relationRequired: true,
    secondary: { types: ['voucher', 'document'], required: true },
    requiredAgreement: 2,
    data: strictData({ is_match: yesNo('is_match') }, 'BANK_TRANSACTION_MATCH'),
  },
  MANUAL_REVIEW: {
    description: 'A person looks at any record (and optionally a second one) and approves it or not. data: {approved: boolean, note (at most 1000 characters)}. One result completes it.',
    relation: RELATION_TYPES,
    /** a review may be about nothing in particular: the task then belongs to the client account it names */
    relationRequired: false,
    secondary: { types: RELATION_TYPES, required: false },
    requiredAgreement: 1,
    data: strictData({ approved: yesNo('approved'), note: orNull(z.string().trim().max(1000, 'must be at most 1000 characters')) }, 'MANUAL_REVIEW'),
  },
} as const satisfies Record<
  string,
  {
    description: string;
    relation: readonly RelationType[];
    /** false: relation_type and relation_id may be left out (spec 002 requires only task_type) */
    relationRequired: boolean;
    secondary: { types: readonly RelationType[]; required: boolean } | null;
    requiredAgreement: number;
    data: z.ZodType;
  }
>;

export type WorkerTaskTypeCode = keyof typeof WORKER_TASK_TYPES;
export const WORKER_TASK_TYPE_CODES = Object.keys(WORKER_TASK_TYPES) as WorkerTaskTypeCode[];

/** The rules of one of the service's own task types (spelled exactly as listed), or undefined for a client's type. */
export const ownTaskType = (taskType: unknown) =>
  typeof taskType === 'string' && Object.hasOwn(WORKER_TASK_TYPES, taskType) ? WORKER_TASK_TYPES[taskType as WorkerTaskTypeCode] : undefined;

/** JSON with the keys of every object sorted: equal data, equal text. */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value && typeof value === 'object') {
    const entries = Object.keys(value)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${canonicalJson((value as Record<string, unknown>)[k])}`);
    return `{${entries.join(',')}}`;
  }
  return JSON.stringify(value ?? null);
}

export const dataHash = (data: unknown): string => createHash('sha256').update(canonicalJson(data)).digest('hex');

/**
 * The consensus rule: each submitter's latest result counts once; when `required` submitters' latest
 * results carry the same data (hash), the task is agreed. Returns that hash, or null. Results without
 * a submitter (the system) count each on its own.
 */
export function agreedHash(results: readonly { id: number; submittedById: number | null; dataHash: string }[], required: number): string | null {
  const latest = new Map<string, { id: number; dataHash: string }>();
  for (const r of [...results].sort((a, b) => a.id - b.id)) latest.set(r.submittedById == null ? `result:${r.id}` : `user:${r.submittedById}`, r);
  const votes = new Map<string, number>();
  for (const { dataHash: h } of latest.values()) votes.set(h, (votes.get(h) ?? 0) + 1);
  for (const [h, n] of votes) if (n >= required) return h;
  return null;
}

/** PATCH (spec 002 "States and transitions"): only PENDING → CANCELLED; the problem in words, or null. */
export function patchProblem(current: WorkerTaskStatusCode, requested: WorkerTaskStatusCode): string | null {
  if (requested !== 'CANCELLED') return `status can only be set to CANCELLED (got ${requested})`;
  if (current !== 'PENDING') return `only a PENDING task can be cancelled; this one is ${current}`;
  return null;
}

/** Result submission: refused for COMPLETED (spec) and CANCELLED tasks. */
export function submissionProblem(status: WorkerTaskStatusCode, resultCount: number): string | null {
  if (status !== 'PENDING') return `the task is ${status}: results are accepted only while it is PENDING`;
  if (resultCount >= MAX_RESULTS_PER_TASK) return `the task has ${MAX_RESULTS_PER_TASK} results already, the most a task takes`;
  return null;
}

// ── Inputs ──────────────────────────────────────────────────────────────────────────────────────

/** The most task_type values one list filter names (each goes into the query). */
const MAX_TASK_TYPE_FILTER = 100;

/** GET /worker/tasks: page 1, per_page 100 (spec 002), also the most (each may embed its results). */
export const WORKER_TASK_PAGE_LIMITS: PageLimits = { defaultPerPage: 100, maxPerPage: 100 };

/** order_by of the list: public names → columns of worker_tasks; oldest first by default (a queue). */
export const WORKER_TASK_ORDER = { id: 'id', created_at: 'created_at', completed_at: 'completed_at', task_type: 'task_type', status: 'status' } as const;
export const DEFAULT_WORKER_TASK_ORDER = ['created_at'];

/** Any word of at most 50 characters (the column), lower-cased; empty is none. RELATION_TYPES name records of this API. */
const relationType = z
  .string()
  .trim()
  .toLowerCase()
  .max(50, 'must be at most 50 characters')
  .transform((v) => v || null);

/** spec 002: "task_type (required)", values not listed: any text of 1–100 characters (trimmed), case-sensitive. */
const taskType = nonEmptyText(100);
const status = z.enum(WORKER_TASK_STATUSES, { error: () => `must be one of ${WORKER_TASK_STATUSES.join(', ')}` });

/**
 * A relation is a type and an id together, for every task type; the service's own types also say
 * which relations they take (checked after the shape, so each problem names its field).
 */
function relationRules(value: Record<string, unknown>, ctx: z.RefinementCtx) {
  const rel = value.relationType;
  let halfGiven = false;
  for (const [typeKey, idKey, prefix] of [['relationType', 'relationId', 'relation_'], ['secondaryRelationType', 'secondaryRelationId', 'secondary_relation_']] as const) {
    if ((value[typeKey] == null) !== (value[idKey] == null)) {
      halfGiven = true;
      ctx.addIssue({ code: 'custom', path: [value[typeKey] == null ? typeKey : idKey], message: `is required with ${prefix}${value[typeKey] == null ? 'id' : 'type'}` });
    }
  }
  const type = ownTaskType(value.taskType);
  if (!type || halfGiven) return;
  if (rel == null) {
    if (type.relationRequired) ctx.addIssue({ code: 'custom', path: ['relationType'], message: `is required for a ${value.taskType} task (${type.relation.join(' or ')})` });
    else if (value.secondaryRelationType != null || value.secondaryRelationId != null) {
      ctx.addIssue({ code: 'custom', path: ['secondaryRelationType'], message: 'needs a relation: send relation_type and relation_id too' });
    }
    return;
  }
  if (typeof rel === 'string' && !(type.relation as readonly string[]).includes(rel)) {
    ctx.addIssue({ code: 'custom', path: ['relationType'], message: `a ${value.taskType} task is about a ${type.relation.join(' or ')}, not a ${rel}` });
  }
  const secType = value.secondaryRelationType;
  const secId = value.secondaryRelationId;
  if (!type.secondary) {
    if (secType != null) ctx.addIssue({ code: 'custom', path: ['secondaryRelationType'], message: `a ${value.taskType} task has no secondary relation` });
    return;
  }
  if (secType == null) {
    if (type.secondary.required) ctx.addIssue({ code: 'custom', path: ['secondaryRelationType'], message: `is required for a ${value.taskType} task (${type.secondary.types.join(' or ')})` });
    return;
  }
  if (typeof secType === 'string' && !(type.secondary.types as readonly string[]).includes(secType)) {
    ctx.addIssue({ code: 'custom', path: ['secondaryRelationType'], message: `must be ${type.secondary.types.join(' or ')} for a ${value.taskType} task` });
  }
  if (secType === rel && secId === value.relationId) ctx.addIssue({ code: 'custom', path: ['secondaryRelationId'], message: 'must name another record than the relation' });
}

/** The inputs of every worker task operation (the GraphQL fields' arguments). */
export const workerTaskRules = {
  list: z.object({
    clientAccountId: id.nullish(),
    /** default [PENDING] (the schema's); null lists every status */
    status: z.array(status).max(WORKER_TASK_STATUSES.length * 2, 'names at most 6 values').nullish(),
    /** free text, as stored (the REST list splits at commas, semicolons and blanks) */
    taskType: z.array(taskType).max(MAX_TASK_TYPE_FILTER, `names at most ${MAX_TASK_TYPE_FILTER} values`).nullish(),
    hasSubmittedResults: z.boolean().nullish(),
    hasResultsFromId: id.nullish(),
    hasNoResultsFromId: id.nullish(),
    /** spec 002 "integer threshold": any whole number (0 or less matches no task) */
    lessThanResultsFromMe: z.number().int('must be a whole number').nullish(),
    downplayResultsFromId: id.nullish(),
    orderBy: orderByNames(WORKER_TASK_ORDER),
    ...pageArgs,
  }),
  create: z.object({
    input: z
      .object({
        taskType,
        /** a task starts PENDING; the field is accepted for the spec's body, with that value only */
        status: status.refine((v) => v === 'PENDING', 'a task is created PENDING (CANCELLED and COMPLETED come later)').nullish(),
        relationType: relationType.nullish(),
        relationId: id.nullish(),
        /** beyond the spec's body: the client account of a task without a relation (default: the caller's only one) */
        clientAccountId: id.nullish(),
        secondaryRelationType: relationType.nullish(),
        secondaryRelationId: id.nullish(),
        comment: optionalText(2000),
      })
      .superRefine(relationRules, evenWithIssues),
  }),
  update: z.object({ id, input: z.object({ status }) }),
  submit: z.object({
    taskId: id,
    /** spec 002 "data (object, required)": any JSON object; the service's own types check it against their schema (the service needs the task) */
    data: z.unknown().optional().superRefine((v, ctx) => {
      if (v == null) ctx.addIssue({ code: 'custom', message: 'is required' });
      else if (typeof v !== 'object' || Array.isArray(v)) ctx.addIssue({ code: 'custom', message: 'must be a JSON object' });
    }),
  }),
};
