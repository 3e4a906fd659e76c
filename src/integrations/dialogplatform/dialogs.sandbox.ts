import { createHash } from 'node:crypto';
import { DIALOGS_SCOPE } from '../govportal/portal.ts';
import { systemUserOfToken } from '../govportal/portal.sandbox.ts';
import { defineSandbox, sandboxError } from '../sandbox/define.ts';
import { partyUrn, type Dialog } from './dialogs.ts';

/**
 * The dialog platform's search, simulated (see ./dialogs.ts). Needs a live system-user token with the
 * scope dialogplatform:dialogs.read of the organisation asked for (401 without, 403 another scope or
 * organisation). Every organisation has the same six dialogs in shape, with ids and dates derived from
 * its number: VAT returns, A-messages, the yearly accounts, a tax assessment, in the statuses
 * InProgress, Completed, RequiresAttention, Draft and Sent. `status` and `serviceResource` filter
 * (comma-separated lists allowed).
 */
export const DIALOG_STATUSES = ['InProgress', 'Completed', 'RequiresAttention', 'Draft', 'Sent'] as const;

const TEMPLATES = [
  { serviceResource: 'urn:altinn:resource:taxauthority-vat-return', status: 'InProgress', title: 'Mva-melding for 5. termin', sender: 'Skatteetaten', dueDays: 20 },
  { serviceResource: 'urn:altinn:resource:taxauthority-vat-return', status: 'Completed', title: 'Mva-melding for 4. termin', sender: 'Skatteetaten', dueDays: null },
  { serviceResource: 'urn:altinn:resource:taxauthority-a-message', status: 'Completed', title: 'A-melding for oktober', sender: 'Skatteetaten', dueDays: null },
  { serviceResource: 'urn:altinn:resource:taxauthority-tax-assessment', status: 'RequiresAttention', title: 'Skatteoppgjør for selskap', sender: 'Skatteetaten', dueDays: 28 },
  { serviceResource: 'urn:altinn:resource:registry-yearly-accounts', status: 'Draft', title: 'Årsregnskap', sender: 'Regnskapsregisteret', dueDays: 200 },
  { serviceResource: 'urn:altinn:resource:registry-yearly-accounts', status: 'Sent', title: 'Årsregnskap (forrige år)', sender: 'Regnskapsregisteret', dueDays: null },
] as const;

const DAY = 86_400_000;
const EPOCH = Date.UTC(2026, 0, 1);

function uuidFrom(seed: string): string {
  const h = createHash('sha256').update(seed).digest('hex');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-4${h.slice(13, 16)}-a${h.slice(17, 20)}-${h.slice(20, 32)}`;
}

export function organisationDialogs(orgNumber: string): Dialog[] {
  const spread = Number(orgNumber.slice(-3)) % 30;
  return TEMPLATES.map((t, i) => {
    const created = EPOCH - (i * 23 + spread) * DAY;
    return {
      id: uuidFrom(`dialog:${orgNumber}:${i}`),
      party: partyUrn(orgNumber),
      serviceResource: t.serviceResource,
      status: t.status,
      title: t.title,
      senderName: t.sender,
      createdAt: new Date(created).toISOString(),
      updatedAt: new Date(created + (3 + i) * DAY).toISOString(),
      dueAt: t.dueDays === null ? null : new Date(created + t.dueDays * DAY).toISOString(),
    };
  });
}

const list = (v: unknown): string[] | undefined => (typeof v === 'string' && v ? v.split(',').map((s) => s.trim()).filter(Boolean) : undefined);

defineSandbox('dialogplatform', (router) => {
  router.get('/dialogs', (req, res) => {
    const token = /^Bearer (.+)$/.exec(req.get('authorization') ?? '')?.[1] ?? '';
    const holder = systemUserOfToken(token);
    if (!holder) return sandboxError(res, 401, 'invalid_token: a live system-user token is required');
    if (holder.scope !== DIALOGS_SCOPE) return sandboxError(res, 403, `The token's scope is ${holder.scope}, not ${DIALOGS_SCOPE}`);
    const party = typeof req.query.party === 'string' ? req.query.party : '';
    if (party !== partyUrn(holder.orgNumber)) return sandboxError(res, 403, 'The system user does not act for this party');
    const statuses = list(req.query.status);
    const resources = list(req.query.serviceResource);
    const items = organisationDialogs(holder.orgNumber).filter((d) => (!statuses || statuses.includes(d.status)) && (!resources || resources.includes(d.serviceResource)));
    res.json({ items, hasNextPage: false, continuationToken: null });
  });
});
