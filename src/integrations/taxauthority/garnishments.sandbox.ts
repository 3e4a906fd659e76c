import { createHash } from 'node:crypto';
import type { Request } from 'express';
import { defineSandbox, sandboxError } from '../sandbox/define.ts';
import { garnishmentOrderSchema, type GarnishmentOrder } from './garnishments.ts';

/**
 * The tax authority's garnishment orders, simulated (see ./garnishments.ts for the API).
 *
 * Derived orders: for every person number the employer names, a hash of "<org>:<person>" decides
 * (the same question always gets the same answer):
 *   - 1 in 10 persons has a FIXED utleggstrekk (creditor Statens innkrevingssentral, priority 2):
 *     500.00 to 4 400.00 a pay period, in steps of 100;
 *   - 1 in 10 has a PERCENTAGE bidragstrekk (creditor NAV, priority 1): 5.00 % to 24.50 % of net pay;
 *   - the other 8 in 10 have none.
 * A derived order is version 1, sequence number 1, valid from the first of a month of last year, with
 * no end; its id is `TP-<org>-<10 hex digits of the hash>`. The employer gets derived orders only for
 * the persons it names.
 *
 * Controls (no real service has them), kept in memory per organisation:
 *   POST   /taxauthority/sandbox/garnishments/{org}              add an order (body: person_number and
 *          any order field; the rest defaults as a FIXED utleggstrekk) → 201 the order, version 1.
 *          An added order is listed for the employer whoever it is for (as the authority knows
 *          employments from the a-melding), so an order for a person the employer did not name shows.
 *   PATCH  /taxauthority/sandbox/garnishments/{org}/{order_id}   change fields of a listed order
 *          (derived or added): its version goes up by one, or becomes `version` when the body sets it
 *          (to simulate a stale copy) → the order.
 *   DELETE /taxauthority/sandbox/garnishments/{org}/{order_id}   lift the order: it is no longer listed → 204.
 *   DELETE /taxauthority/sandbox/garnishments/{org}              forget every control of the organisation → 204.
 */

const ORG_NUMBER = /^\d{9}$/;
const PERSON_NUMBER = /^\d{11}$/;

export const SANDBOX_CREDITORS = {
  innkrevingssentral: { organization_number: '971648198', name: 'Statens innkrevingssentral', bank_account_number: '76940512057' },
  nav: { organization_number: '889640782', name: 'Arbeids- og velferdsetaten (NAV)', bank_account_number: '76940517539' },
} as const;

const hashOf = (org: string, person: string) => createHash('sha256').update(`garnishment:${org}:${person}`).digest();

/** The order the sandbox derives for a person at an employer, or null (8 in 10 persons). */
export function derivedOrder(org: string, person: string, now = new Date()): GarnishmentOrder | null {
  const h = hashOf(org, person);
  const kind = h[0]! % 10;
  if (kind > 1) return null;
  const lastYear = now.getUTCFullYear() - 1;
  const month = 1 + (h[6]! % 12);
  const common = {
    order_id: `TP-${org}-${h.subarray(8, 13).toString('hex')}`,
    version: 1,
    sequence_number: 1,
    person_number: person,
    case_number: `${lastYear}-${String(h.readUInt32BE(14) % 1_000_000).padStart(6, '0')}`,
    valid_from: `${lastYear}-${String(month).padStart(2, '0')}-01`,
    valid_to: null,
  };
  if (kind === 0) {
    return {
      ...common,
      garnishment_type: 'UTLEGGSTREKK',
      deduction_type: 'FIXED',
      amount: `${500 + (h.readUInt16BE(2) % 40) * 100}.00`,
      percentage: null,
      priority: 2,
      creditor: { ...SANDBOX_CREDITORS.innkrevingssentral },
      payment_reference: kid(h),
    };
  }
  return {
    ...common,
    garnishment_type: 'BIDRAGSTREKK',
    deduction_type: 'PERCENTAGE',
    amount: null,
    percentage: `${5 + (h[4]! % 20)}.${h[5]! % 2 ? '50' : '00'}`,
    priority: 1,
    creditor: { ...SANDBOX_CREDITORS.nav },
    payment_reference: null,
  };
}

/** A KID (mod 10, Luhn) of 15 digits from the hash. */
function kid(h: Buffer): string {
  const body = String(h.readUInt32BE(20)).padStart(10, '0') + String(h.readUInt16BE(24) % 10_000).padStart(4, '0');
  let sum = 0;
  [...body].reverse().forEach((c, i) => {
    let d = Number(c) * (i % 2 === 0 ? 2 : 1);
    if (d > 9) d -= 9;
    sum += d;
  });
  return body + String((10 - (sum % 10)) % 10);
}

interface OrgState {
  /** orders added by the control, by id */
  added: Map<string, GarnishmentOrder>;
  /** derived orders changed by the control, by id */
  changed: Map<string, GarnishmentOrder>;
  /** lifted orders (derived or added) */
  lifted: Set<string>;
  next: number;
}

const state = new Map<string, OrgState>();
const stateOf = (org: string): OrgState => {
  let s = state.get(org);
  if (!s) state.set(org, (s = { added: new Map(), changed: new Map(), lifted: new Set(), next: 1 }));
  return s;
};

/** What the authority lists for the employer asking about these persons. */
export function ordersFor(org: string, persons: readonly string[]): GarnishmentOrder[] {
  const s = state.get(org);
  const out: GarnishmentOrder[] = [];
  for (const person of new Set(persons)) {
    const derived = derivedOrder(org, person);
    if (!derived || s?.lifted.has(derived.order_id)) continue;
    out.push(s?.changed.get(derived.order_id) ?? derived);
  }
  for (const order of s?.added.values() ?? []) if (!s!.lifted.has(order.order_id)) out.push(order);
  return out;
}

const body = (req: Request): Record<string, unknown> => (req.body && typeof req.body === 'object' && !Array.isArray(req.body) ? (req.body as Record<string, unknown>) : {});

/** The order with the fields of the body; null and the first failing field when it is no valid order. */
function merged(base: GarnishmentOrder, changes: Record<string, unknown>): { order: GarnishmentOrder } | { error: string } {
  const parsed = garnishmentOrderSchema.safeParse({ ...base, ...changes });
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    return { error: `${issue?.path.join('.') || 'order'}: ${issue?.message}` };
  }
  return { order: parsed.data };
}

defineSandbox('taxauthority', (router) => {
  router.post('/garnishments/search', (req, res) => {
    const b = body(req);
    if (typeof b.org_number !== 'string' || !ORG_NUMBER.test(b.org_number)) return sandboxError(res, 400, 'org_number must be 9 digits');
    if (!Array.isArray(b.person_numbers) || b.person_numbers.some((p) => typeof p !== 'string' || !PERSON_NUMBER.test(p))) {
      return sandboxError(res, 400, 'person_numbers must be a list of 11-digit national identity numbers');
    }
    res.json({ org_number: b.org_number, retrieved_at: new Date().toISOString(), orders: ordersFor(b.org_number, b.person_numbers as string[]) });
  });

  router.post('/sandbox/garnishments/:org', (req, res) => {
    const org = String(req.params.org);
    if (!ORG_NUMBER.test(org)) return sandboxError(res, 400, 'The organisation number must be 9 digits');
    const s = stateOf(org);
    const b = body(req);
    const id = typeof b.order_id === 'string' && b.order_id ? b.order_id : `SBX-${org}-${s.next++}`;
    if (s.added.has(id) || (typeof b.person_number === 'string' && derivedOrder(org, b.person_number)?.order_id === id)) return sandboxError(res, 409, `Order ${id} exists`);
    const base: GarnishmentOrder = {
      order_id: id,
      version: 1,
      sequence_number: 1,
      person_number: '',
      garnishment_type: 'UTLEGGSTREKK',
      deduction_type: 'FIXED',
      amount: '1000.00',
      percentage: null,
      priority: 2,
      creditor: { ...SANDBOX_CREDITORS.innkrevingssentral },
      payment_reference: null,
      case_number: null,
      valid_from: `${new Date().getUTCFullYear()}-01-01`,
      valid_to: null,
    };
    const result = merged(base, { ...b, order_id: id, version: 1 });
    if ('error' in result) return sandboxError(res, 400, result.error);
    s.added.set(id, result.order);
    s.lifted.delete(id);
    res.status(201).json(result.order);
  });

  /** a listed order of the organisation by id: an added or changed one, or a derived one (whose person the body or query must name) */
  const find = (org: string, id: string, person: unknown): GarnishmentOrder | undefined => {
    const s = stateOf(org);
    if (s.lifted.has(id)) return undefined;
    const found = s.added.get(id) ?? s.changed.get(id);
    if (found) return found;
    const derived = typeof person === 'string' ? derivedOrder(org, person) : null;
    return derived?.order_id === id ? derived : undefined;
  };

  router.patch('/sandbox/garnishments/:org/:id', (req, res) => {
    const org = String(req.params.org);
    const id = String(req.params.id);
    const b = body(req);
    const current = find(org, id, b.person_number ?? req.query.person_number);
    if (!current) return sandboxError(res, 404, `No listed order ${id} for ${org} (a derived order needs its person_number)`);
    const { person_number: _person, order_id: _id, ...changes } = b;
    const result = merged(current, { ...changes, version: typeof b.version === 'number' ? b.version : current.version + 1 });
    if ('error' in result) return sandboxError(res, 400, result.error);
    const s = stateOf(org);
    if (s.added.has(id)) s.added.set(id, result.order);
    else s.changed.set(id, result.order);
    res.json(result.order);
  });

  router.delete('/sandbox/garnishments/:org/:id', (req, res) => {
    const org = String(req.params.org);
    const id = String(req.params.id);
    if (!find(org, id, req.query.person_number)) return sandboxError(res, 404, `No listed order ${id} for ${org} (a derived order needs ?person_number=)`);
    stateOf(org).lifted.add(id);
    res.status(204).end();
  });

  router.delete('/sandbox/garnishments/:org', (req, res) => {
    state.delete(String(req.params.org));
    res.status(204).end();
  });
});
