import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { errorCode, startTestApp, targets, type TestApp } from '../support/harness.ts';
import type { Tenant } from '../support/seed.ts';
import { voucherFactory } from '../support/vouchers.ts';

const TASK = 'id clientAccountId status taskType relationType relationId completedAt results { id submittedById data } consensus { id data }';

// The same rules through /graphql and the MCP tools generated from the operation table.
describe.each(targets())('worker tasks GraphQL and MCP (%s)', (target) => {
  let app: TestApp;
  let t: Tenant;
  let other: Tenant;
  let make: ReturnType<typeof voucherFactory>;

  beforeAll(async () => {
    app = await startTestApp(target);
    [t, other] = [await app.seed.tenant(), await app.seed.tenant()];
    make = voucherFactory(app);
  });
  afterAll(async () => {
    await app?.close();
  });

  const createTask = async (tenant: Tenant, taskType = 'VOUCHER_CLASSIFICATION') =>
    app.gql(tenant.user.token, `mutation($input: CreateWorkerTaskInput!) { createWorkerTask(input: $input) { ${TASK} } }`, {
      input: { taskType, relationType: 'voucher', relationId: (await make.voucher(tenant)).id },
    });

  it('workerTaskTypes publishes every type with its relations and the agreement it needs', async () => {
    const res = await app.gql(t.user.token, '{ workerTaskTypes { taskType relationTypes secondaryRelationTypes secondaryRelationRequired requiredAgreement description } }');
    expect(res.errors).toBeUndefined();
    expect(res.data.workerTaskTypes.map((x: any) => [x.taskType, x.relationTypes.join('|'), x.secondaryRelationTypes.join('|'), x.secondaryRelationRequired, x.requiredAgreement])).toEqual([
      ['VOUCHER_CLASSIFICATION', 'voucher', '', false, 2],
      ['VOUCHER_DATA_EXTRACTION', 'voucher', '', false, 2],
      ['VOUCHER_DUPLICATE_CHECK', 'voucher', 'voucher', true, 2],
      ['BANK_TRANSACTION_MATCH', 'bank_transaction', 'voucher|document', true, 2],
      ['MANUAL_REVIEW', 'voucher|document|bank_transaction|journal_entry|businesspartner', 'voucher|document|bank_transaction|journal_entry|businesspartner', false, 1],
    ]);
  });

  it('createWorkerTask, submitWorkerTaskResult (consensus of two users), workerTask and workerTasks', async () => {
    const created = await createTask(t);
    expect(created.errors).toBeUndefined();
    const task = created.data.createWorkerTask;
    expect(task).toMatchObject({ clientAccountId: t.account.id, status: 'PENDING', results: [], consensus: null });
    const worker = await app.seed.user();
    await app.seed.grantRole({ userId: worker.id, clientAccountId: t.account.id, role: 'EM' });
    const submit = (token: string) =>
      app.gql(token, `mutation($id: Int!, $data: JSON!) { submitWorkerTaskResult(taskId: $id, data: $data) { id taskId status data } }`, { id: task.id, data: { document_type: 'RECPT' } });
    expect((await submit(t.user.token)).data.submitWorkerTaskResult).toMatchObject({ taskId: task.id, status: 'SUBMITTED', data: { document_type: 'RECPT' } });
    const second = (await submit(worker.token)).data.submitWorkerTaskResult;
    const one = await app.gql(t.user.token, `{ workerTask(id: ${task.id}) { ${TASK} } }`);
    expect(one.data.workerTask).toMatchObject({ status: 'COMPLETED', completedAt: expect.any(String), consensus: { id: second.id } });
    expect(one.data.workerTask.results.map((r: any) => r.submittedById)).toEqual([t.user.id, worker.id]);
    const page = await app.gql(t.user.token, `{ workerTasks(clientAccountId: ${t.account.id}, status: [COMPLETED]) { nodes { id } meta { records perPage } } }`);
    expect(page.data.workerTasks).toEqual({ nodes: [{ id: task.id }], meta: { records: 1, perPage: 100 } });
  });

  it('spec 002: "task_type (required)" is a String and "Worker task | PENDING | result submission | | PENDING": a client\'s own type through GraphQL and the MCP tools takes any JSON object and stays PENDING', async () => {
    const created = await app.gql(t.user.token, `mutation($input: CreateWorkerTaskInput!) { createWorkerTask(input: $input) { ${TASK} } }`, { input: { taskType: 'Fakturakontroll', relationType: 'ekstern', relationId: 9 } });
    expect(created.errors).toBeUndefined();
    const task = created.data.createWorkerTask;
    expect(task).toMatchObject({ clientAccountId: t.account.id, status: 'PENDING', taskType: 'Fakturakontroll', relationType: 'ekstern', relationId: 9 });
    const submitted = await app.gql(t.user.token, `mutation($id: Int!, $data: JSON!) { submitWorkerTaskResult(taskId: $id, data: $data) { data } }`, { id: task.id, data: { godkjent: [true, { av: 'meg' }] } });
    expect(submitted.errors).toBeUndefined();
    expect(submitted.data.submitWorkerTaskResult.data).toEqual({ godkjent: [true, { av: 'meg' }] });

    const client = new Client({ name: 'worker', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${app.url}/mcp?modules=contributor`), { requestInit: { headers: { authorization: `Bearer ${t.user.token}` } } }));
    try {
      const again = await client.callTool({ name: 'submit_worker_task_result', arguments: { id: task.id, data: { godkjent: [true, { av: 'meg' }] } } });
      expect(again.isError).toBeFalsy();
      const listed = await client.callTool({ name: 'list_worker_tasks', arguments: { client_account_id: t.account.id, task_type: ['Fakturakontroll'], with: ['results', 'consensus'] } });
      const rows = JSON.parse((listed.content as { text: string }[])[0].text).data;
      expect(rows).toEqual([expect.objectContaining({ id: task.id, task_type: 'Fakturakontroll', status: 'PENDING', completed_at: null, consensus: null, results: [expect.anything(), expect.anything()] })]);
    } finally {
      await client.close();
    }
    const one = await app.gql(t.user.token, `{ workerTasks(clientAccountId: ${t.account.id}, taskType: ["Fakturakontroll"]) { nodes { id status } } }`);
    expect(one.data.workerTasks.nodes).toEqual([{ id: task.id, status: 'PENDING' }]);
  });

  it('errors carry the API codes: validation, forbidden, not found, and a read-only token cannot mutate', async () => {
    const theirs = (await createTask(other)).data.createWorkerTask;
    expect(errorCode(await app.gql(t.user.token, `{ workerTask(id: ${theirs.id}) { id } }`))).toBe('common.forbidden');
    expect(errorCode(await app.gql(t.user.token, '{ workerTask(id: 99999999) { id } }'))).toBe('common.not_found');
    const mine = (await createTask(t)).data.createWorkerTask;
    const bad = await app.gql(t.user.token, `mutation { submitWorkerTaskResult(taskId: ${mine.id}, data: { document_type: "BILL" }) { id } }`);
    expect(bad.errors?.[0]).toMatchObject({ message: expect.stringContaining('document_type: must be a document type'), extensions: { code: 'common.validation_error' } });
    const cancel = await app.gql(t.user.token, `mutation { updateWorkerTask(id: ${mine.id}, input: { status: COMPLETED }) { id } }`);
    expect(cancel.errors?.[0]).toMatchObject({ message: expect.stringContaining('status can only be set to CANCELLED'), extensions: { code: 'common.validation_error' } });
    const readOnly = await app.gql(t.user.readToken, `mutation { updateWorkerTask(id: ${mine.id}, input: { status: CANCELLED }) { id } }`);
    expect(errorCode(readOnly)).toBe('insufficient_scope');
    expect((await app.gql(t.user.token, `{ workerTask(id: ${mine.id}) { status } }`)).data.workerTask.status).toBe('PENDING');
  });

  it('MCP: one tool per operation (the alias paths add none), and a worker submits through the tools', async () => {
    const client = new Client({ name: 'worker', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${app.url}/mcp?modules=contributor`), { requestInit: { headers: { authorization: `Bearer ${t.user.token}` } } }));
    try {
      const tools = (await client.listTools()).tools;
      expect(tools.map((x) => x.name).sort()).toEqual([
        'call_operation', 'create_worker_task', 'describe_operation', 'get_worker_task', 'graphql_mutation', 'graphql_query', 'list_toolsets', 'list_worker_tasks', 'submit_worker_task_result', 'update_worker_task',
      ]);
      const described = await client.callTool({ name: 'describe_operation', arguments: { name: 'list_worker_tasks' } });
      expect((described.structuredContent as { rest: string }).rest).toContain('/api/v2/contributor/tasks or /api/v2/worker/tasks');
      const v = await make.voucher(t);
      const created = await client.callTool({ name: 'create_worker_task', arguments: { task_type: 'MANUAL_REVIEW', relation_type: 'voucher', relation_id: v.id } });
      expect(created.isError).toBeFalsy();
      const task = JSON.parse((created.content as { text: string }[])[0].text);
      const result = await client.callTool({ name: 'submit_worker_task_result', arguments: { id: task.id, data: { approved: true } } });
      expect(JSON.parse((result.content as { text: string }[])[0].text)).toMatchObject({ task_id: task.id, data: { approved: true, note: null } });
      const listed = await client.callTool({ name: 'list_worker_tasks', arguments: { client_account_id: t.account.id, status: ['COMPLETED'], with: ['consensus'] } });
      expect(JSON.parse((listed.content as { text: string }[])[0].text).data.map((x: any) => x.id)).toContain(task.id);
      const refused = await client.callTool({ name: 'submit_worker_task_result', arguments: { id: task.id, data: { approved: true } } });
      expect(refused.isError).toBe(true);
      expect(JSON.parse((refused.content as { text: string }[])[0].text)).toMatchObject({ status: 400 });
    } finally {
      await client.close();
    }
  });
});
