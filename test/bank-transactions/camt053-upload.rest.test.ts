import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, targets, type TestApp } from '../support/harness.ts';
import type { Tenant } from '../support/seed.ts';

/** A one-entry camt.053.001.02 statement of the account NO27 1503 2012 342: a KID payment in. */
const statement = (ref: string, closing = '11250.00') => `<?xml version="1.0" encoding="UTF-8"?>
<Document xmlns="urn:iso:std:iso:20022:tech:xsd:camt.053.001.02">
  <BkToCstmrStmt>
    <GrpHdr><MsgId>MSG-${ref}</MsgId><CreDtTm>2026-06-01T06:00:00</CreDtTm></GrpHdr>
    <Stmt>
      <Id>STMT-${ref}</Id>
      <FrToDt><FrDtTm>2026-05-01T00:00:00</FrDtTm><ToDtTm>2026-05-31T23:59:59</ToDtTm></FrToDt>
      <Acct><Id><IBAN>NO2715032012342</IBAN></Id><Ccy>NOK</Ccy></Acct>
      <Bal><Tp><CdOrPrtry><Cd>OPBD</Cd></CdOrPrtry></Tp><Amt Ccy="NOK">10000.00</Amt><CdtDbtInd>CRDT</CdtDbtInd><Dt><Dt>2026-05-01</Dt></Dt></Bal>
      <Bal><Tp><CdOrPrtry><Cd>CLBD</Cd></CdOrPrtry></Tp><Amt Ccy="NOK">${closing}</Amt><CdtDbtInd>CRDT</CdtDbtInd><Dt><Dt>2026-05-31</Dt></Dt></Bal>
      <Ntry>
        <Amt Ccy="NOK">1250.00</Amt><CdtDbtInd>CRDT</CdtDbtInd><Sts>BOOK</Sts>
        <BookgDt><Dt>2026-05-05</Dt></BookgDt><ValDt><Dt>2026-05-05</Dt></ValDt>
        <AcctSvcrRef>${ref}</AcctSvcrRef>
        <NtryDtls><TxDtls>
          <RltdPties><Dbtr><Nm>Kunde AS</Nm></Dbtr></RltdPties>
          <RmtInf><Strd><CdtrRefInf><Ref>000100100012</Ref></CdtrRefInf></Strd></RmtInf>
        </TxDtls></NtryDtls>
      </Ntry>
    </Stmt>
  </BkToCstmrStmt>
</Document>`;

// Beyond the spec (issue: "the same endpoint accepts an ISO 20022 camt.053 file"): POST
// /bank-statements with the file itself as the body (Content-Type application/xml or text/xml),
// client_account_id in the query, answered as the JSON form with `camt053` is.
describe.each(targets())('camt.053 as a raw body (%s)', (target) => {
  let app: TestApp;
  let t: Tenant;

  beforeAll(async () => {
    app = await startTestApp(target);
    t = await app.seed.tenant();
    await app.seed.prisma.bankAccount.create({ data: { clientAccountId: t.account.id, accountNumber: '15032012342', ledgerAccountId: await t.ledgerAccount('1920') } });
  });
  afterAll(() => app?.close());

  const upload = (xml: string, qs: string, contentType = 'application/xml') =>
    app.http('POST', `/api/v2/bank-statements${qs}`, { token: t.user.token, body: xml, headers: { 'content-type': contentType } });

  it('imports the file: 201 with the statement, its transaction and the KID detail; the same file again skips it', async () => {
    const res = await upload(statement('RAW-1'), `?client_account_id=${t.account.id}`);
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    expect(res.body).toMatchObject({ client_account_id: t.account.id, opening_balance: '10000.00', closing_balance: '11250.00', imported: 1, skipped: 0 });
    const tx = await app.seed.prisma.bankTransaction.findFirstOrThrow({ where: { clientAccountId: t.account.id, entryReference: 'RAW-1' }, include: { details: true } });
    expect(tx.amount.toFixed(2)).toBe('1250.00');
    expect(tx.details[0].structuredReference).toBe('000100100012');
    const again = await upload(statement('RAW-1'), `?client_account_id=${t.account.id}`, 'text/xml; charset=utf-8');
    expect(again.status).toBe(201);
    expect(again.body).toMatchObject({ imported: 0, skipped: 1 });
  });

  it('the balance rule holds for a file too (400, nothing written); no client_account_id is 403', async () => {
    const res = await upload(statement('RAW-2', '11000.00'), `?client_account_id=${t.account.id}`);
    expect(res.status).toBe(400);
    expect(res.body.status).toBe(400);
    expect(await app.seed.prisma.bankTransaction.count({ where: { entryReference: 'RAW-2' } })).toBe(0);
    expect((await upload(statement('RAW-3'), '')).status).toBe(403);
  });
});
