import { createHash, randomBytes, randomUUID } from 'node:crypto';
import type { Request, Response } from 'express';
import { isValidOrganizationNumber } from '../../shared/norwegian-ids.ts';
import { loginTokenPerson, personName } from '../idprovider/login.sandbox.ts';
import { escapeHtml, sandboxPage } from '../sandbox/html.ts';
import { defineSandbox, sandboxError } from '../sandbox/define.ts';
import { SYSTEM_USER_STATUSES, rightSchema, type PortalSystemUser } from './portal.ts';

/**
 * The portal's person and system-user APIs, simulated (see ./portal.ts).
 *
 * Reportees: the person themself, two or three organisations derived from the national identity
 * number (the same number always gives the same ones), and every organisation given to the person
 * through the control POST /govportal/sandbox/persons/{pid}/reportees {org_number, name}.
 *
 * System users: a request starts New with a confirm_url (a page for the organisation's
 * representative). Opening that page makes it Pending; approving makes it Active, rejecting makes it
 * Rejected (final). The control POST /govportal/sandbox/system-users/{id}/status {status} sets any
 * status. Only an Active system user gets tokens, and only for the scopes of its rights.
 */
const PORTAL_TOKEN_TTL_S = 1800;
const SYSTEM_TOKEN_TTL_S = 600;

const portalTokens = new Map<string, { pid: string; expiresAt: number }>();
const givenReportees = new Map<string, { orgNumber: string; name: string }[]>();
interface StoredSystemUser extends PortalSystemUser {
  created_at: string;
}
const systemUsers = new Map<string, StoredSystemUser>();
const systemTokens = new Map<string, { systemUserId: string; orgNumber: string; scope: string; expiresAt: number }>();

/** The system user and scope a system-user token speaks for (the tax authority's and dialog platform's simulators ask this). */
export function systemUserOfToken(token: string): { systemUserId: string; orgNumber: string; scope: string } | undefined {
  const t = systemTokens.get(token);
  if (!t || t.expiresAt < Date.now()) return undefined;
  const user = systemUsers.get(t.systemUserId);
  if (user?.status !== 'Active') return undefined; // revoked since
  return { systemUserId: t.systemUserId, orgNumber: t.orgNumber, scope: t.scope };
}

const NAMES = ['Fjord', 'Nordlys', 'Bjørke', 'Solberg', 'Havbris', 'Granli', 'Elvetun', 'Fjellro', 'Lynghaug', 'Skogly'];
const KINDS = [
  ['Regnskap', 'AS'],
  ['Bygg', 'AS'],
  ['Eiendom', 'AS'],
  ['Consulting', 'ENK'],
  ['Holding', 'AS'],
] as const;

/** the organisations a person is reportee for in the simulation, derived from the number */
export function derivedOrganisations(pid: string): { orgNumber: string; name: string; form: string }[] {
  const hash = createHash('sha256').update(`reportees:${pid}`).digest();
  const count = 2 + (hash[0]! % 2);
  const orgs: { orgNumber: string; name: string; form: string }[] = [];
  for (let i = 0; orgs.length < count; i++) {
    const n = hash.readUInt32BE((i * 4) % 28);
    const body = String(80_000_000 + ((n + i * 7919) % 19_999_999)).slice(0, 8);
    let orgNumber = '';
    for (let d = 0; d <= 9 && !orgNumber; d++) if (isValidOrganizationNumber(`${body}${d}`)) orgNumber = `${body}${d}`;
    if (!orgNumber || orgs.some((o) => o.orgNumber === orgNumber)) continue; // a number without a check digit: the next one
    const [kind, form] = KINDS[(hash[i + 1]! + i) % KINDS.length]!;
    orgs.push({ orgNumber, name: `${NAMES[(hash[i + 2]! + i) % NAMES.length]} ${kind} ${form}`, form });
  }
  return orgs;
}

function organisationsOf(pid: string) {
  const derived = derivedOrganisations(pid);
  const given = (givenReportees.get(pid) ?? []).filter((g) => !derived.some((d) => d.orgNumber === g.orgNumber)).map((g) => ({ ...g, form: 'AS' }));
  return [...derived, ...given];
}

function bearer(req: Request): string {
  return /^Bearer (.+)$/.exec(req.get('authorization') ?? '')?.[1] ?? '';
}

/** the person of a live portal token, or a 401 */
function portalPerson(req: Request, res: Response): string | undefined {
  const t = portalTokens.get(bearer(req));
  if (!t || t.expiresAt < Date.now()) return void sandboxError(res, 401, 'invalid_token: the portal token is missing, unknown or expired');
  return t.pid;
}

const body = (req: Request): Record<string, unknown> => (req.body && typeof req.body === 'object' ? (req.body as Record<string, unknown>) : {});

const shown = (u: StoredSystemUser): StoredSystemUser => ({ ...u, rights: u.rights.map((r) => ({ ...r })) });

defineSandbox('govportal', (router, env) => {
  router.get('/authentication/exchange', (req, res) => {
    const person = loginTokenPerson(bearer(req));
    if (!person) return sandboxError(res, 401, 'invalid_token: not a live national-login access token');
    if (!person.scope.split(' ').includes('govportal:portal')) return sandboxError(res, 403, 'The login token lacks the scope govportal:portal');
    const token = randomBytes(24).toString('base64url');
    portalTokens.set(token, { pid: person.pid, expiresAt: Date.now() + PORTAL_TOKEN_TTL_S * 1000 });
    res.json({ access_token: token, token_type: 'Bearer', expires_in: PORTAL_TOKEN_TTL_S });
  });

  router.get('/reportees', (req, res) => {
    const pid = portalPerson(req, res);
    if (!pid) return;
    const base = env.publicBase(req);
    res.type('application/hal+json').send(
      JSON.stringify({
        _links: { self: { href: `${base}/reportees` } },
        _embedded: {
          reportees: [
            { Name: personName(pid), Type: 'Person', SocialSecurityNumber: pid, _links: { self: { href: `${base}/reportees/person/${pid}` } } },
            ...organisationsOf(pid).map((o) => ({
              Name: o.name,
              Type: 'Enterprise',
              OrganizationNumber: o.orgNumber,
              OrganizationForm: o.form,
              Status: 'Active',
              _links: { self: { href: `${base}/reportees/organization/${o.orgNumber}` } },
            })),
          ],
        },
      }),
    );
  });

  router.get('/authorized-parties', (req, res) => {
    const pid = portalPerson(req, res);
    if (!pid) return;
    const party = (key: string) => 50_000_000 + (Number(key) % 10_000_000);
    res.json([
      { name: personName(pid), type: 'Person', personId: pid, organizationNumber: null, partyId: party(pid.slice(-7)), authorizedRoles: ['PRIV'], authorizedResources: [], subunits: [] },
      ...organisationsOf(pid).map((o, i) => ({
        name: o.name,
        type: 'Organization',
        personId: null,
        organizationNumber: o.orgNumber,
        partyId: party(o.orgNumber),
        unitType: o.form,
        authorizedRoles: i === 0 ? ['DAGL', 'REGNA'] : ['REGNA'],
        authorizedResources: ['taxauthority-property-search', 'dialogplatform-dialogs'],
        subunits: [],
      })),
    ]);
  });

  router.post('/systemuser/requests', (req, res) => {
    const b = body(req);
    if (typeof b.org_number !== 'string' || !isValidOrganizationNumber(b.org_number)) return sandboxError(res, 400, 'org_number must be a valid organisation number');
    if (typeof b.system_id !== 'string' || !b.system_id) return sandboxError(res, 400, 'system_id is required');
    if (typeof b.external_ref !== 'string' || !b.external_ref) return sandboxError(res, 400, 'external_ref is required');
    const rights = rightSchema.array().min(1).safeParse(b.rights);
    if (!rights.success) return sandboxError(res, 400, 'rights must be a non-empty array of {resource, scope}');
    const redirect = b.redirect_url ?? null;
    if (redirect !== null && (typeof redirect !== 'string' || !/^https?:\/\//.test(redirect))) return sandboxError(res, 400, 'redirect_url must be an http(s) URL');
    for (const u of systemUsers.values()) {
      if (u.system_id === b.system_id && u.org_number === b.org_number && u.external_ref === b.external_ref) {
        return sandboxError(res, 409, 'A request with this system_id, org_number and external_ref exists');
      }
    }
    const id = randomUUID();
    const user: StoredSystemUser = {
      id,
      external_ref: b.external_ref,
      system_id: b.system_id,
      org_number: b.org_number,
      status: 'New',
      confirm_url: `${env.publicBase(req)}/systemuser/confirm/${id}`,
      redirect_url: redirect as string | null,
      rights: rights.data,
      created_at: new Date().toISOString(),
    };
    systemUsers.set(id, user);
    res.status(201).json(shown(user));
  });

  router.get('/systemuser/requests/:id', (req, res) => {
    const user = systemUsers.get(req.params.id);
    if (!user) return sandboxError(res, 404, 'No such system user request');
    res.json(shown(user));
  });

  const confirmPage = (req: Request, res: Response, user: StoredSystemUser, note?: string) => {
    const rights = user.rights.map((r) => `<li>${escapeHtml(r.resource)} (${escapeHtml(r.scope)})</li>`).join('');
    const decided = user.status === 'Active' || user.status === 'Rejected';
    res.type('html').send(
      sandboxPage(
        'Godkjenn systembruker',
        `${note ? `<p role="status">${escapeHtml(note)}</p>` : ''}
<p>Systemet <strong>${escapeHtml(user.system_id)}</strong> ber om en systembruker for organisasjon ${escapeHtml(user.org_number)} med disse rettighetene:</p>
<ul>${rights}</ul>
<p>Status: <strong>${escapeHtml(user.status)}</strong></p>
${
  decided
    ? ''
    : `<form method="post" action="${escapeHtml(`${env.publicBase(req)}/systemuser/confirm/${user.id}`)}">
<button type="submit" name="decision" value="approve">Godkjenn</button>
<button type="submit" name="decision" value="reject">Avvis</button>
</form>`
}`,
      ),
    );
  };

  /** the representative opens the page: the confirmation has started (New → Pending) */
  router.get('/systemuser/confirm/:id', (req, res) => {
    const user = systemUsers.get(req.params.id);
    if (!user) return void res.status(404).type('html').send(sandboxPage('Ukjent forespørsel', '<p>Denne forespørselen finnes ikke.</p>'));
    if (user.status === 'New') user.status = 'Pending';
    confirmPage(req, res, user);
  });

  router.post('/systemuser/confirm/:id', (req, res) => {
    const user = systemUsers.get(req.params.id);
    if (!user) return void res.status(404).type('html').send(sandboxPage('Ukjent forespørsel', '<p>Denne forespørselen finnes ikke.</p>'));
    const decision = body(req).decision;
    if (decision !== 'approve' && decision !== 'reject') return void res.status(400).type('html').send(sandboxPage('Ugyldig valg', '<p>Velg godkjenn eller avvis.</p>'));
    if (user.status === 'Active' || user.status === 'Rejected') return void res.status(409).type('html').send(sandboxPage('Allerede avgjort', `<p>Status: ${escapeHtml(user.status)}</p>`));
    user.status = decision === 'approve' ? 'Active' : 'Rejected';
    if (user.redirect_url) {
      const back = new URL(user.redirect_url);
      back.searchParams.set('system_user_id', user.id);
      back.searchParams.set('status', user.status);
      return res.redirect(303, back.toString());
    }
    confirmPage(req, res, user, user.status === 'Active' ? 'Systembrukeren er godkjent. Du kan lukke dette vinduet.' : 'Forespørselen er avvist.');
  });

  router.post('/systemuser/token', (req, res) => {
    const b = body(req);
    const user = typeof b.system_user_id === 'string' ? systemUsers.get(b.system_user_id) : undefined;
    if (!user) return sandboxError(res, 400, 'system_user_id names no system user');
    if (user.status !== 'Active') return sandboxError(res, 403, `The system user is ${user.status}, not Active`);
    if (typeof b.scope !== 'string' || !user.rights.some((r) => r.scope === b.scope)) return sandboxError(res, 403, `The system user has no right granting the scope ${String(b.scope)}`);
    const token = randomBytes(24).toString('base64url');
    systemTokens.set(token, { systemUserId: user.id, orgNumber: user.org_number, scope: b.scope, expiresAt: Date.now() + SYSTEM_TOKEN_TTL_S * 1000 });
    res.json({ access_token: token, token_type: 'Bearer', expires_in: SYSTEM_TOKEN_TTL_S, scope: b.scope });
  });

  // --- sandbox controls (no real portal has these) ---

  /** gives the person an organisation to act for: {org_number, name} */
  router.post('/sandbox/persons/:pid/reportees', (req, res) => {
    const b = body(req);
    if (!/^\d{11}$/.test(req.params.pid)) return sandboxError(res, 400, 'pid must be 11 digits');
    if (typeof b.org_number !== 'string' || !isValidOrganizationNumber(b.org_number)) return sandboxError(res, 400, 'org_number must be a valid organisation number');
    const list = givenReportees.get(req.params.pid) ?? [];
    if (!list.some((g) => g.orgNumber === b.org_number)) list.push({ orgNumber: b.org_number, name: typeof b.name === 'string' && b.name ? b.name : `Organisasjon ${b.org_number}` });
    givenReportees.set(req.params.pid, list);
    res.status(201).json({ pid: req.params.pid, organisations: organisationsOf(req.params.pid).map((o) => ({ org_number: o.orgNumber, name: o.name })) });
  });

  /** sets a system user's status: {status: New | Pending | Active | Rejected} */
  router.post('/sandbox/system-users/:id/status', (req, res) => {
    const user = systemUsers.get(req.params.id);
    if (!user) return sandboxError(res, 404, 'No such system user request');
    const status = body(req).status;
    if (!SYSTEM_USER_STATUSES.includes(status as PortalSystemUser['status'])) return sandboxError(res, 400, `status must be one of ${SYSTEM_USER_STATUSES.join(', ')}`);
    user.status = status as PortalSystemUser['status'];
    res.json(shown(user));
  });
});
