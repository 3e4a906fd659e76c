import { PDFDocument } from '@pdfme/pdf-lib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FILE_URL_LIFETIME_SECONDS, FileUrlSigner, loadFileUrlKey } from '../../src/modules/files/file-urls.ts';
import { pdfText } from '../../src/modules/vouchers/pipeline/pipeline.read.ts';
import { startTestApp, targets, type TestApp } from '../support/harness.ts';
import type { Tenant } from '../support/seed.ts';
import { fetchUrl, makePdf, PNG, TEST_FILES_DIR, upload } from './helpers.ts';

// The presigned file URLs of a file record (spec 001: "file download URLs expire after one hour"):
// GET /api/v2/files/{id}/{variant}, public, the signature its authorisation.
describe.each(targets())('presigned file URLs (%s)', (target) => {
  let app: TestApp;
  let t: Tenant;
  let other: Tenant;
  let pdf3: Buffer;
  let pdfFile: any;
  let pngFile: any;
  let csvFile: any;
  /** signs as the app does (the same key), for URLs the app would not hand out */
  let signer: FileUrlSigner;

  beforeAll(async () => {
    app = await startTestApp(target, { env: { DATA_DIR: TEST_FILES_DIR } });
    [t, other] = [await app.seed.tenant(), await app.seed.tenant()];
    pdf3 = await makePdf(['Første side', 'Andre side', 'Tredje side']);
    pdfFile = (await upload(app, { client_account_id: t.account.id, type: 'VOUCHER' }, { bytes: pdf3, name: 'tre sider.pdf' }, t.user.token)).body;
    pngFile = (await upload(app, { client_account_id: t.account.id, type: 'ATTACHMENT' }, { bytes: PNG, name: 'bilde.png' }, t.user.token)).body;
    csvFile = (await upload(app, { client_account_id: t.account.id, type: 'ATTACHMENT' }, { bytes: Buffer.from('a;b\n1;2\n'), name: 'liste.csv' }, t.user.token)).body;
    signer = new FileUrlSigner(await loadFileUrlKey(app.db.prisma), app.url);
  });
  afterAll(() => app?.close());

  it('download: the bytes as uploaded, as an attachment with the stored content type; no token needed', async () => {
    const res = await fetchUrl(pdfFile.download_url);
    expect(res.status).toBe(200);
    expect(res.bytes.equals(pdf3)).toBe(true);
    expect(res.headers.get('content-type')).toBe('application/pdf');
    expect(res.headers.get('content-disposition')).toBe(`attachment; filename="tre sider.pdf"; filename*=UTF-8''tre%20sider.pdf`);
    expect(res.headers.get('x-content-type-options')).toBe('nosniff');
  });

  it('original: the same bytes inline, private caching no longer than the URL lives, a CSP that loads nothing', async () => {
    const res = await fetchUrl(pngFile.original_url);
    expect(res.status).toBe(200);
    expect(res.bytes.equals(PNG)).toBe(true);
    expect(res.headers.get('content-type')).toBe('image/png');
    expect(res.headers.get('content-disposition')).toMatch(/^inline; filename="bilde.png"/);
    const maxAge = Number(/^private, max-age=(\d+)$/.exec(res.headers.get('cache-control') ?? '')?.[1]);
    expect(maxAge).toBeGreaterThan(FILE_URL_LIFETIME_SECONDS - 60);
    expect(maxAge).toBeLessThanOrEqual(FILE_URL_LIFETIME_SECONDS);
    expect(res.headers.get('content-security-policy')).toMatch(/default-src 'none'/);
    expect(res.headers.get('content-security-policy')).toMatch(/frame-ancestors 'none'/);
    expect(res.headers.get('content-security-policy')).not.toMatch(/sandbox/);
  });

  it('a file that is no PDF or image is served sandboxed (an uploaded text cannot run as a page)', async () => {
    const res = await fetchUrl(csvFile.original_url);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/csv; charset=utf-8');
    expect(res.headers.get('content-security-policy')).toMatch(/sandbox/);
  });

  it('preview of page 2 of a 3-page PDF is a one-page PDF with that page', async () => {
    const res = await fetchUrl(pdfFile.page_images[1].preview_url);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/pdf');
    expect(res.headers.get('content-disposition')).toMatch(/^inline; filename="tre sider-page-2.pdf"/);
    expect((await PDFDocument.load(res.bytes)).getPageCount()).toBe(1);
    expect(await pdfText(res.bytes)).toContain('Andre side');
  });

  it('thumbnail of a PDF: its first page as a one-page PDF; of an image: the image', async () => {
    const pdf = await fetchUrl(pdfFile.thumbnail_url);
    expect((await PDFDocument.load(pdf.bytes)).getPageCount()).toBe(1);
    expect(await pdfText(pdf.bytes)).toContain('Første side');
    const png = await fetchUrl(pngFile.thumbnail_url);
    expect(png.bytes.equals(PNG)).toBe(true);
    expect((await fetchUrl(pngFile.preview_url)).bytes.equals(PNG)).toBe(true);
  });

  it('403 {error, status} for an altered signature, id, variant or page', async () => {
    const url = new URL(pdfFile.download_url);
    const altered = new URL(url);
    const sig = altered.searchParams.get('signature')!;
    altered.searchParams.set('signature', (sig[0] === 'A' ? 'B' : 'A') + sig.slice(1));
    const res = await fetchUrl(altered.toString());
    expect(res.status).toBe(403);
    expect(res.json).toEqual({ error: expect.stringContaining('not valid'), status: 403 });
    // the download's signature on another variant or file, or another page of a preview
    expect((await fetchUrl(url.toString().replace('/download?', '/original?'))).status).toBe(403);
    expect((await fetchUrl(url.toString().replace(`/files/${pdfFile.id}/`, `/files/${pngFile.id}/`))).status).toBe(403);
    expect((await fetchUrl(pdfFile.page_images[0].preview_url.replace('page=1', 'page=2'))).status).toBe(403);
    // a later expiry with the old signature
    const extended = new URL(url);
    extended.searchParams.set('expires', String(Number(url.searchParams.get('expires')) + 3600));
    expect((await fetchUrl(extended.toString())).status).toBe(403);
    const unsigned = new URL(url);
    unsigned.searchParams.delete('signature');
    expect((await fetchUrl(unsigned.toString())).status).toBe(403);
  });

  it('403 saying so for an expired URL (signed two hours ago)', async () => {
    const past = new FileUrlSigner(await loadFileUrlKey(app.db.prisma), app.url, () => Date.now() - 2 * 3600_000);
    const res = await fetchUrl(past.url(pdfFile.id, 'download'));
    expect(res.status).toBe(403);
    expect(res.json).toEqual({ error: expect.stringContaining('expired'), status: 403 });
  });

  it('404 for an unknown file, an unknown variant, a page beyond the last, a preview of a file without pages', async () => {
    expect((await fetchUrl(signer.url(2147483647, 'download'))).status).toBe(404);
    const unknownVariant = pdfFile.download_url.replace('/download?', '/bigger?');
    expect((await fetchUrl(unknownVariant)).status).toBe(404);
    const beyond = await fetchUrl(signer.url(pdfFile.id, 'preview', 4));
    expect(beyond.status).toBe(404);
    expect(beyond.json).toEqual({ error: expect.stringContaining('Page 4'), status: 404 });
    expect((await fetchUrl(signer.url(csvFile.id, 'preview', 1))).status).toBe(404);
    expect((await fetchUrl(`${app.url}/api/v2/files/abc/download?expires=1&signature=x`)).status).toBe(404);
  });

  it('GraphQL file(id): the record with fresh URLs that serve; another tenant\'s file is forbidden', async () => {
    const res = await app.gql(t.user.token, 'query ($id: Int!) { file(id: $id) { id pageCount downloadUrl pageImages { pageNumber previewUrl } createdVoucherId createdVoucher { status } } }', { id: pdfFile.id });
    expect(res.errors).toBeUndefined();
    expect(res.data.file).toMatchObject({ id: pdfFile.id, pageCount: 3, createdVoucherId: pdfFile.created_voucher_id, createdVoucher: { status: expect.stringMatching(/^(PENDING|DRAFT)$/) } });
    expect((await fetchUrl(res.data.file.downloadUrl)).bytes.equals(pdf3)).toBe(true);
    const foreign = await app.gql(other.user.token, 'query ($id: Int!) { file(id: $id) { id } }', { id: pdfFile.id });
    expect(foreign.errors?.[0].extensions?.code).toBe('common.forbidden');
  });

  it('GraphQL uploadFile takes the bytes as base64 (the /graphql body is limited to 1 MB)', async () => {
    const res = await app.gql(
      t.user.token,
      'mutation ($c: Int!, $b: FileContent!) { uploadFile(clientAccountId: $c, type: ATTACHMENT, fileName: "g.png", contentBase64: $b) { contentType size pageCount } }',
      { c: t.account.id, b: PNG.toString('base64') },
    );
    expect(res.errors).toBeUndefined();
    expect(res.data.uploadFile).toEqual({ contentType: 'image/png', size: PNG.length, pageCount: 1 });
    const bad = await app.gql(t.user.token, 'mutation ($c: Int!) { uploadFile(clientAccountId: $c, type: ATTACHMENT, fileName: "g.png", contentBase64: "@@@") { id } }', { c: t.account.id });
    expect(bad.errors?.[0].message).toMatch(/base64/);
  });

  it('the MCP tool upload_file takes content_base64 and file_name', async () => {
    const res = await app.http('POST', '/mcp', {
      token: t.user.token,
      headers: { accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2025-06-18' },
      body: {
        jsonrpc: '2.0',
        id: 1,
        method: 'tools/call',
        params: { name: 'upload_file', arguments: { client_account_id: t.account.id, type: 'VOUCHER', file_name: 'mcp.pdf', content_base64: pdf3.toString('base64') } },
      },
    });
    expect(res.status).toBe(200);
    const result = res.body.result;
    expect(result.isError, JSON.stringify(result)).toBeFalsy();
    expect(JSON.parse(result.content[0].text)).toMatchObject({ file_name: 'mcp.pdf', content_type: 'application/pdf', page_count: 3, created_voucher: { status: 'PENDING' } });
  });
});
