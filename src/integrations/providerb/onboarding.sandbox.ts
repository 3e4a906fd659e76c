import { createHash } from 'node:crypto';
import type { Request } from 'express';
import { defineSandbox, sandboxError, type SandboxEnv } from '../sandbox/define.ts';
import type { Onboarding } from './onboarding.ts';

/**
 * The second bank integration provider's onboarding, simulated (API in ./onboarding.ts). An
 * onboarding per organisation number, kept in memory; its id is derived from the number. It waits
 * for consent (PENDING_CONSENT, missing_steps [CONSENT], a consent_url on the sandbox) until consent
 * is given: on the consent page (GET shows it, POST gives consent) or through the sandbox control
 * POST /providerb/sandbox/onboardings/{org_number}/consent. Then it is COMPLETED and every account
 * connects, except account numbers whose bank the provider does not reach: those whose first four
 * digits (the bank's clearing number) start with 9, which stay unconnected.
 */
interface Stored {
  id: string;
  orgNumber: string;
  name: string;
  consented: boolean;
  accountNumbers: string[];
}

const onboardings = new Map<string, Stored>();

const onboardingId = (org: string) => `ob_${createHash('sha256').update(`providerb:${org}`).digest('hex').slice(0, 16)}`;
const reachable = (accountNumber: string) => !accountNumber.startsWith('9');

function shown(o: Stored, env: SandboxEnv, req: Request): Onboarding {
  return {
    id: o.id,
    org_number: o.orgNumber,
    status: o.consented ? 'COMPLETED' : 'PENDING_CONSENT',
    consent_url: o.consented ? null : `${env.publicBase(req)}/consent/${o.id}`,
    missing_steps: o.consented ? [] : ['CONSENT'],
    accounts: o.accountNumbers.map((n) => ({ account_number: n, connected: o.consented && reachable(n) })),
  };
}

const byId = (id: string) => [...onboardings.values()].find((o) => o.id === id);

defineSandbox('providerb', (router, env) => {
  router.put('/onboardings/:org', (req, res) => {
    const org = req.params.org;
    if (!/^\d{9}$/.test(org)) return sandboxError(res, 400, 'org_number must be 9 digits');
    const numbers: unknown = req.body?.account_numbers;
    if (!Array.isArray(numbers) || !numbers.every((n) => typeof n === 'string' && /^\d{11}$/.test(n))) {
      return sandboxError(res, 400, 'account_numbers must be a list of 11-digit account numbers');
    }
    const existing = onboardings.get(org);
    const o: Stored = existing ?? { id: onboardingId(org), orgNumber: org, name: String(req.body?.name ?? org), consented: false, accountNumbers: [] };
    o.accountNumbers = [...new Set([...o.accountNumbers, ...numbers])].sort();
    onboardings.set(org, o);
    res.status(existing ? 200 : 201).json(shown(o, env, req));
  });

  // the consent page the company's owner is sent to
  router.get('/consent/:id', (req, res) => {
    const o = byId(req.params.id);
    if (!o) return sandboxError(res, 404, 'No such onboarding');
    res.type('html').send(
      `<!doctype html><title>Consent</title><h1>Connect ${escapeHtml(o.name)}'s bank accounts</h1>` +
        `<p>${o.accountNumbers.map(escapeHtml).join(', ') || 'No accounts yet'}</p>` +
        `<form method="post"><button>Give consent</button></form>`,
    );
  });
  router.post('/consent/:id', (req, res) => {
    const o = byId(req.params.id);
    if (!o) return sandboxError(res, 404, 'No such onboarding');
    o.consented = true;
    res.type('html').send('<!doctype html><title>Consent given</title><p>Consent given. You can close this page.</p>');
  });

  // sandbox control: the owner gave consent
  router.post('/sandbox/onboardings/:org/consent', (req, res) => {
    const o = onboardings.get(req.params.org);
    if (!o) return sandboxError(res, 404, `No onboarding for ${req.params.org}`);
    o.consented = true;
    res.json(shown(o, env, req));
  });
});

const escapeHtml = (s: string) => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
