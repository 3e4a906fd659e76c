import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_UPLOAD_BYTES } from '../../src/modules/files/files.rules.ts';
import { startTestApp, targets, type TestApp } from '../support/harness.ts';
import type { Tenant } from '../support/seed.ts';
import { makePdf, PNG, TEST_FILES_DIR, upload } from './helpers.ts';

// POST /files (spec 001 "Voucher (an uploaded file with voucher fields)"; spec 000 "Errors"): the
// upload of vouchers and attachments as multipart/form-data, what the bytes are deciding the type.
describe.each(targets())('POST /files (%s)', (target) => {
  let app: TestApp;
  let t: Tenant;
  let other: Tenant;
  let pdf3: Buffer;

  beforeAll(async () => {
    app = await startTestApp(target, { env: { DATA_DIR: TEST_FILES_DIR } });
    [t, other] = [await app.seed.tenant(), await app.seed.tenant()];
    pdf3 = await makePdf(['Side én', 'Side to', 'Side tre']);
  });
  afterAll(() => app?.close());

  const post = (fields: Record<string, string | number>, file?: { bytes: Buffer; name: string; type?: string }, token: string | undefined = t.user.token) => upload(app, fields, file, token);

  it('201 with the file record: every field, presigned URLs, page_images, the voucher an upload of type VOUCHER made', async () => {
    const res = await post({ client_account_id: t.account.id, type: 'VOUCHER' }, { bytes: pdf3, name: 'kvittering æøå.pdf', type: 'application/pdf' });
    expect(res.status, res.text).toBe(201);
    const url = (variant: string, page?: number) =>
      expect.stringMatching(new RegExp(`^${app.url}/api/v2/files/${res.body.id}/${variant}\\?${page ? `page=${page}&` : ''}expires=\\d+&signature=[\\w-]+$`));
    expect(res.body).toEqual({
      id: expect.any(Number),
      client_account_id: t.account.id,
      type: 'VOUCHER',
      file_name: 'kvittering æøå.pdf',
      content_type: 'application/pdf',
      size: pdf3.length,
      page_count: 3,
      voucher_id: null,
      document_id: null,
      created_voucher_id: expect.any(Number),
      created_voucher: { id: expect.any(Number), status: 'PENDING', workflow_status: 'IMAGE_PROCESSING', workflow_error: null },
      created_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
      created_by_id: t.user.id,
      download_url: url('download'),
      original_url: url('original'),
      preview_url: url('preview', 1),
      thumbnail_url: url('thumbnail'),
      page_images: [1, 2, 3].map((n) => ({ page_number: n, preview_url: url('preview', n) })),
    });
    expect(res.body.created_voucher.id).toBe(res.body.created_voucher_id);
    const voucher = await app.db.prisma.voucher.findUniqueOrThrow({ where: { id: res.body.created_voucher_id } });
    // (status and workflow_status move on as soon as a job worker takes the pipeline job)
    expect(voucher).toMatchObject({ clientAccountId: t.account.id, fileId: res.body.id, channel: 'upload', createdById: t.user.id });
    // the pipeline job was enqueued in the upload's transaction
    const jobs = await app.db.prisma.$queryRawUnsafe<{ n: bigint }[]>(`SELECT count(*) AS n FROM pgboss.job WHERE name = 'vouchers.process' AND data->>'voucherId' = $1`, String(voucher.id));
    expect(Number(jobs[0].n)).toBe(1);
  });

  it('"allowed types by sniffed content, never the header": a PNG sent as application/pdf named .pdf is stored as image/png, one page', async () => {
    const res = await post({ client_account_id: t.account.id, type: 'VOUCHER' }, { bytes: PNG, name: 'faktura.pdf', type: 'application/pdf' });
    expect(res.status, res.text).toBe(201);
    expect(res.body).toMatchObject({ content_type: 'image/png', page_count: 1, size: PNG.length, file_name: 'faktura.pdf' });
    expect(res.body.page_images).toHaveLength(1);
  });

  it('an ATTACHMENT may be CSV, XML or text (no pages: no preview or thumbnail), attached to a voucher of the account', async () => {
    const voucher = await post({ client_account_id: t.account.id, type: 'VOUCHER' }, { bytes: PNG, name: 'v.png' });
    const csv = await post({ client_account_id: t.account.id, type: 'ATTACHMENT', voucher_id: voucher.body.created_voucher_id }, { bytes: Buffer.from('dato;beløp\n2026-03-01;100,00\n'), name: 'liste.csv', type: 'application/pdf' });
    expect(csv.status, csv.text).toBe(201);
    expect(csv.body).toMatchObject({ type: 'ATTACHMENT', content_type: 'text/csv', page_count: null, voucher_id: voucher.body.created_voucher_id, created_voucher_id: null, created_voucher: null, preview_url: null, thumbnail_url: null, page_images: [] });
    const xml = await post({ client_account_id: t.account.id, type: 'ATTACHMENT' }, { bytes: Buffer.from('<?xml version="1.0"?><Invoice xmlns="urn:oasis:names:specification:ubl:schema:xsd:Invoice-2"/>'), name: 'ehf.xml' });
    expect(xml.body).toMatchObject({ content_type: 'application/xml', voucher_id: null });
    const text = await post({ client_account_id: t.account.id, type: 'ATTACHMENT' }, { bytes: Buffer.from('Notat: betalt kontant'), name: 'notat' });
    expect(text.body).toMatchObject({ content_type: 'text/plain' });
    expect(await app.db.prisma.voucher.count({ where: { clientAccountId: t.account.id, fileId: { in: [csv.body.id, xml.body.id, text.body.id] } } })).toBe(0);
  });

  it.each([
    ['XML', Buffer.from('<?xml version="1.0"?><a/>'), 'application/xml'],
    ['plain text', Buffer.from('just text'), 'text/plain'],
    ['a ZIP', Buffer.from('UEsDBAoAAAAAAAAAIQAAAAAAAAAAAAAAAAAEAAAAYS50eHRQSwECFAAKAAAAAAAAACEAAAAAAAAAAAAAAAAABAAAAAAAAAAAAAAAAAAAAAAAYS50eHRQSwUGAAAAAAEAAQAyAAAAIgAAAAAA', 'base64'), 'application/zip'],
  ])('400 naming the sniffed type: %s is no VOUCHER or CHAT_ATTACHMENT', async (_what, bytes, sniffed) => {
    for (const type of ['VOUCHER', 'CHAT_ATTACHMENT']) {
      const res = await post({ client_account_id: t.account.id, type }, { bytes, name: 'x.pdf', type: 'application/pdf' });
      expect(res.status).toBe(400);
      expect(res.body).toEqual({ error: expect.stringContaining(sniffed), status: 400 });
    }
  });

  it('400 for bytes no type is recognised in, even as an ATTACHMENT', async () => {
    const res = await post({ client_account_id: t.account.id, type: 'ATTACHMENT' }, { bytes: Buffer.from([0, 1, 2, 3, 254, 255, 0, 7]), name: 'x.bin' });
    expect(res.status).toBe(400);
    expect(res.body.error).toMatch(/could not be recognised/);
  });

  it('400 for an encrypted PDF and for a damaged one', async () => {
    const encrypted = await makePdf(['Hemmelig'], { userPassword: 'secret', ownerPassword: 'owner', pdfVersion: '1.7' });
    const res = await post({ client_account_id: t.account.id, type: 'VOUCHER' }, { bytes: encrypted, name: 'locked.pdf' });
    expect(res.status).toBe(400);
    expect(res.body.error).toMatch(/encrypted/);
    const damaged = Buffer.concat([pdf3.subarray(0, 200)]);
    const broken = await post({ client_account_id: t.account.id, type: 'VOUCHER' }, { bytes: damaged, name: 'broken.pdf' });
    expect(broken.status).toBe(400);
    expect(broken.body.error).toMatch(/cannot be read|without pages/);
    expect(await app.db.prisma.storedFile.count({ where: { clientAccountId: t.account.id, fileName: { in: ['locked.pdf', 'broken.pdf'] } } })).toBe(0);
  });

  it.each([
    ['type is missing', {}, 'type'],
    ['type is unknown', { type: 'RECEIPT' }, 'type'],
  ])('400 {error, status} when %s', async (_what, fields: Record<string, string>, named) => {
    const res = await post({ client_account_id: t.account.id, ...fields }, { bytes: PNG, name: 'a.png' });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ error: expect.stringContaining(named), status: 400 });
  });

  it('400 without a file part, with two files, or with the file in another field', async () => {
    const none = await post({ client_account_id: t.account.id, type: 'VOUCHER' }, undefined);
    expect(none).toMatchObject({ status: 400, body: { error: expect.stringContaining('file'), status: 400 } });
    const form = new FormData();
    form.append('client_account_id', String(t.account.id));
    form.append('type', 'VOUCHER');
    form.append('file', new Blob([PNG]), 'a.png');
    form.append('file', new Blob([PNG]), 'b.png');
    const two = await fetch(`${app.url}/api/v2/files`, { method: 'POST', headers: { authorization: `Bearer ${t.user.token}` }, body: form });
    expect(two.status).toBe(400);
    const wrong = new FormData();
    wrong.append('client_account_id', String(t.account.id));
    wrong.append('type', 'VOUCHER');
    wrong.append('document', new Blob([PNG]), 'a.png');
    const elsewhere = await fetch(`${app.url}/api/v2/files`, { method: 'POST', headers: { authorization: `Bearer ${t.user.token}` }, body: wrong });
    expect(elsewhere.status).toBe(400);
    expect(await elsewhere.json()).toEqual({ error: expect.stringContaining("'file'"), status: 400 });
  });

  it('400 for an unknown form field, a truncated multipart body', async () => {
    const unknown = await post({ client_account_id: t.account.id, type: 'VOUCHER', colour: 'red' }, { bytes: PNG, name: 'a.png' });
    expect(unknown).toMatchObject({ status: 400, body: { error: expect.stringContaining('colour'), status: 400 } });
    const truncated = await fetch(`${app.url}/api/v2/files`, {
      method: 'POST',
      headers: { authorization: `Bearer ${t.user.token}`, 'content-type': 'multipart/form-data; boundary=XYZ' },
      body: '--XYZ\r\nContent-Disposition: form-data; name="type"\r\n\r\nVOUCHER\r\n--XYZ\r\nContent-Disposition: form-data; name="file"; filename="a.png"\r\n\r\nabc',
    });
    expect(truncated.status).toBe(400);
    expect(await truncated.json()).toMatchObject({ status: 400 });
  });

  it('413 {error, status} for a file over 25 MB, and nothing is stored', async () => {
    const before = await app.db.prisma.storedFile.count({ where: { clientAccountId: t.account.id } });
    const big = Buffer.alloc(MAX_UPLOAD_BYTES + 1, 0x20);
    PNG.copy(big);
    const res = await post({ client_account_id: t.account.id, type: 'VOUCHER' }, { bytes: big, name: 'big.png' });
    expect(res.status).toBe(413);
    expect(res.body).toEqual({ error: expect.stringContaining('25 MB'), status: 413 });
    expect(await app.db.prisma.storedFile.count({ where: { clientAccountId: t.account.id } })).toBe(before);
  });

  it('403 {error, status}: another tenant\'s client account, a missing or malformed client_account_id', async () => {
    const foreign = await post({ client_account_id: other.account.id, type: 'VOUCHER' }, { bytes: PNG, name: 'a.png' });
    expect(foreign).toMatchObject({ status: 403, body: { error: expect.any(String), status: 403 } });
    const missing = await post({ type: 'VOUCHER' }, { bytes: PNG, name: 'a.png' });
    expect(missing).toMatchObject({ status: 403, body: { error: expect.stringContaining('client_account_id'), status: 403 } });
    const malformed = await post({ client_account_id: 'abc', type: 'VOUCHER' }, { bytes: PNG, name: 'a.png' });
    expect(malformed.status).toBe(403);
    expect(await app.db.prisma.storedFile.count({ where: { clientAccountId: other.account.id } })).toBe(0);
  });

  it('403 for a read-only token (an upload writes); 401 without a token', async () => {
    const readOnly = await post({ client_account_id: t.account.id, type: 'VOUCHER' }, { bytes: PNG, name: 'a.png' }, t.user.readToken);
    expect(readOnly.status).toBe(403);
    const anonymous = await upload(app, { client_account_id: t.account.id, type: 'VOUCHER' }, { bytes: PNG, name: 'a.png' }, undefined);
    expect(anonymous).toMatchObject({ status: 401, body: { error: expect.any(String), status: 401 } });
    expect(anonymous.headers.get('www-authenticate')).toMatch(/^Bearer /);
  });

  it('voucher_id: only for an ATTACHMENT (400), a voucher of the same account (403 for another\'s, 400 for none)', async () => {
    const mine = await post({ client_account_id: t.account.id, type: 'VOUCHER' }, { bytes: PNG, name: 'a.png' });
    const theirs = await post({ client_account_id: other.account.id, type: 'VOUCHER' }, { bytes: PNG, name: 'b.png' }, other.user.token);
    const asVoucher = await post({ client_account_id: t.account.id, type: 'VOUCHER', voucher_id: mine.body.created_voucher_id }, { bytes: PNG, name: 'c.png' });
    expect(asVoucher).toMatchObject({ status: 400, body: { error: expect.stringContaining('voucher_id') } });
    const foreign = await post({ client_account_id: t.account.id, type: 'ATTACHMENT', voucher_id: theirs.body.created_voucher_id }, { bytes: PNG, name: 'd.png' });
    expect(foreign.status).toBe(403);
    const none = await post({ client_account_id: t.account.id, type: 'ATTACHMENT', voucher_id: 2147483647 }, { bytes: PNG, name: 'e.png' });
    expect(none).toMatchObject({ status: 400, body: { error: expect.stringContaining('voucher_id'), status: 400 } });
  });

  it('a JSON body with content_base64 and file_name is the same upload (small files; the MCP tool sends it so)', async () => {
    const res = await app.http('POST', '/api/v2/files', { token: t.user.token, body: { client_account_id: t.account.id, type: 'CHAT_ATTACHMENT', file_name: 'bilde.png', content_base64: PNG.toString('base64') } });
    expect(res.status, res.text).toBe(201);
    expect(res.body).toMatchObject({ type: 'CHAT_ATTACHMENT', content_type: 'image/png', file_name: 'bilde.png', created_voucher: null });
    const bad = await app.http('POST', '/api/v2/files', { token: t.user.token, body: { client_account_id: t.account.id, type: 'CHAT_ATTACHMENT', file_name: 'x.png', content_base64: 'not base64!' } });
    expect(bad).toMatchObject({ status: 400, body: { error: expect.stringContaining('content_base64'), status: 400 } });
  });

  it('Idempotency-Key: the same upload again is replayed, one file and one voucher', async () => {
    const headers = { 'idempotency-key': `upload-${target}-1` };
    const first = await upload(app, { client_account_id: t.account.id, type: 'VOUCHER' }, { bytes: pdf3, name: 'idem.pdf' }, t.user.token, headers);
    const again = await upload(app, { client_account_id: t.account.id, type: 'VOUCHER' }, { bytes: pdf3, name: 'idem.pdf' }, t.user.token, headers);
    expect(first.status).toBe(201);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(again.body.id).toBe(first.body.id);
    const changed = await upload(app, { client_account_id: t.account.id, type: 'VOUCHER' }, { bytes: PNG, name: 'idem.pdf' }, t.user.token, headers);
    expect(changed.status).toBe(422);
    expect(await app.db.prisma.storedFile.count({ where: { clientAccountId: t.account.id, fileName: 'idem.pdf' } })).toBe(1);
  });
});
