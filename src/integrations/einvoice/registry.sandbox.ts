import { defineSandbox, sandboxError } from '../sandbox/define.ts';
import type { Receiver } from './registry.ts';

/**
 * The e-invoicing network's receiver registry, simulated (API in ./registry.ts). Receivers are kept
 * in memory by organisation number. Capabilities are deterministic: every receiver takes the PEPPOL
 * BIS Billing 3.0 invoice and credit note; an organisation number with an even last digit also takes
 * orders (PEPPOL BIS Order 3). Organisation numbers that are not 9 digits are refused (400).
 */
const receivers = new Map<string, Receiver>();

const BILLING = ['urn:peppol:bis:billing:3.0:invoice', 'urn:peppol:bis:billing:3.0:creditnote'];
const ORDER = 'urn:peppol:bis:order:3';

export const receiverCapabilities = (orgNumber: string): string[] => (Number(orgNumber.at(-1)) % 2 === 0 ? [...BILLING, ORDER] : [...BILLING]);

defineSandbox('einvoice', (router) => {
  router.put('/receivers/:org', (req, res) => {
    const org = req.params.org;
    if (!/^\d{9}$/.test(org)) return sandboxError(res, 400, 'org_number must be 9 digits');
    const name = typeof req.body?.name === 'string' && req.body.name.trim() ? req.body.name.trim() : null;
    if (!name) return sandboxError(res, 400, 'name is required');
    const existing = receivers.get(org);
    const receiver: Receiver = {
      org_number: org,
      name,
      status: 'REGISTERED',
      capabilities: receiverCapabilities(org),
      registered_at: existing?.registered_at ?? new Date().toISOString(),
    };
    receivers.set(org, receiver);
    res.status(existing ? 200 : 201).json(receiver);
  });
  router.get('/receivers/:org', (req, res) => {
    const receiver = receivers.get(req.params.org);
    if (!receiver) return sandboxError(res, 404, `No receiver ${req.params.org}`);
    res.json(receiver);
  });
  router.delete('/receivers/:org', (req, res) => {
    if (!receivers.delete(req.params.org)) return sandboxError(res, 404, `No receiver ${req.params.org}`);
    res.status(204).end();
  });
});
