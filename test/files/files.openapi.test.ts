import { describe, expect, it } from 'vitest';
import { buildOpenApiDocument } from '../../src/openapi/openapi.ts';
import { SERVABLE_TYPES } from '../../src/modules/files/files.rules.ts';
import { schema } from '../../src/schema.ts';

// What the OpenAPI document says of uploads and presigned file URLs.
describe('OpenAPI: files', () => {
  const doc = buildOpenApiDocument(schema, { baseUrl: 'http://localhost' });

  it('POST /files takes multipart/form-data (the file in `file`, no base64 field) and JSON with content_base64', () => {
    const content = doc.paths['/files'].post.requestBody!.content;
    expect(Object.keys(content)).toEqual(['multipart/form-data', 'application/json']);
    const form = content['multipart/form-data'];
    expect(form.schema).toMatchObject({
      type: 'object',
      required: ['file', 'client_account_id', 'type'],
      properties: { file: { type: 'string', contentMediaType: 'application/octet-stream' }, type: { enum: expect.arrayContaining(['VOUCHER', 'ATTACHMENT', 'CHAT_ATTACHMENT']) }, voucher_id: {}, file_name: {} },
    });
    expect(form.schema.properties).not.toHaveProperty('content_base64');
    expect(form.encoding).toEqual({ file: { contentType: 'application/octet-stream' } });
    expect(content['application/json'].schema).toMatchObject({ properties: { content_base64: { type: 'string', contentEncoding: 'base64' } }, required: expect.arrayContaining(['content_base64', 'file_name']) });
    expect(doc.paths['/files'].post.responses).toHaveProperty('413');
  });

  it('GET /files/{id}/{variant} is public (no security), answers every type a file can have, 403 and 404 as {error, status}', () => {
    const op = doc.paths['/files/{id}/{variant}'].get;
    expect(op.security).toEqual([]);
    expect(Object.keys((op.responses['200'] as { content: object }).content).sort()).toEqual([...SERVABLE_TYPES].sort());
    for (const s of ['403', '404']) expect(op.responses[s]).toMatchObject({ content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } } });
    expect(op.parameters).toEqual(expect.arrayContaining([expect.objectContaining({ name: 'variant', schema: { type: 'string', enum: ['download', 'original', 'preview', 'thumbnail'] } })]));
  });
});
