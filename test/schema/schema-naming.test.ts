import { getNamedType, isEnumType, isInterfaceType, isObjectType, type GraphQLField } from 'graphql';
import { describe, expect, it } from 'vitest';
import { schema } from '../../src/schema.ts';
import { DIMENSION_KINDS } from '../../src/modules/journal-entries/dimensions.ts';

/**
 * Fields named `…Id` that name no record of this API, so they have no object sibling. Each entry
 * says why; a new `…Id` field either gets its object field or a line here with its reason.
 */
const NOT_A_RECORD: Readonly<Record<string, string>> = {
  // the change feed (issue 32): resource says which table the id is of, and a deleted record's id (a tombstone) names nothing any more
  'Change.resourceId': 'polymorphic (resource), a tombstone for a delete',
  // webhooks (issue 32): the change a delivery carries is a feed item, read through GET /changes; the message id is the webhook-id header
  'WebhookDelivery.changeId': 'a change feed item (GET /changes), no record of its own',
  'WebhookDelivery.messageId': 'the webhook-id header of the delivery, not a record',
  // a line's number within its entry or document (spec 001 line_id), not a record's id
  'DocumentLine.lineId': 'line number',
  'DocumentReconciliationLine.lineId': 'line number',
  'GeneralLedgerRow.lineId': 'line number',
  'JournalEntryLine.lineId': 'line number',
  // polymorphic: relationType says what kind of record, and may name one of another system (src/shared/record-relations.ts)
  'ChatThread.relationId': 'polymorphic (relationType)',
  'ReportRelation.relationId': 'polymorphic (relationType, a dimension type)',
  'JournalEntry.relationId': 'polymorphic (relationType)',
  'Task.relationId': 'polymorphic (relationType)',
  'WorkerTask.relationId': 'polymorphic (relationType)',
  'WorkerTask.secondaryRelationId': 'polymorphic (secondaryRelationType)',
  'IncomeStatementRow.relationId': 'polymorphic (relationType, a dimension type)',
  'TrialBalanceRow.relationId': 'polymorphic (relationType, a dimension type)',
  // the role as the spec numbers it (2 AA … 5 EM); the role itself is the enum `role`
  'Membership.roleId': 'role number',
  // identifiers of other systems, or of things that are no record here
  'BankStatement.messageId': 'camt.053 message id',
  'BankTransaction.endToEndId': 'ISO 20022 end-to-end id',
  'BankTransaction.instructionId': 'ISO 20022 instruction id',
  'BankTransaction.messageId': 'camt.053 message id',
  'BankTransaction.paymentId': "the bank's payment id",
  'ChatToolPreview.toolCallId': "the model's tool call id",
  'ChatToolResult.toolCallId': "the model's tool call id",
  'EquityTransaction.transactionGroupId': 'UUID tying the balanced entries of one transaction (spec 002)',
  'GovportalSystemUser.systemId': "the government portal's system id",
  'PayrollContract.arbeidsforholdId': 'a-melding employment id (UUID)',
  'PayrollGarnishment.externalId': "the authority's order id",
  'TaxReturn.portalInstanceId': "the tax portal's instance id",
  'TaxReturnImportError.portalInstanceId': "the tax portal's instance id",
  'TaxReturnImportSkipped.portalInstanceId': "the tax portal's instance id",
  'TaxReturnImported.portalInstanceId': "the tax portal's instance id",
  'YearlyAccountSubmission.mainFormId': "the portal's form id",
  'YearlyAccountSubmission.portalInstanceId': "the portal's instance id",
  'YearlyAccountSubmission.subFormId': "the portal's form id",
};

const objectTypes = () => Object.values(schema.getTypeMap()).filter((t) => (isObjectType(t) || isInterfaceType(t)) && !t.name.startsWith('__'));
const ID_SCALARS = new Set(['Int', 'ID', 'String']);

describe('schema naming (issue "One naming")', () => {
  it('"every foreign id has its object relation": each …Id field has an object field beside it (or a reason in NOT_A_RECORD)', () => {
    const missing: string[] = [];
    const stale: string[] = [];
    for (const type of objectTypes()) {
      const fields = (type as { getFields(): Record<string, GraphQLField<unknown, unknown>> }).getFields();
      for (const [name, field] of Object.entries(fields)) {
        const base = /^(.+)Id$/.exec(name)?.[1];
        if (!base || !ID_SCALARS.has(getNamedType(field.type).name)) continue;
        const key = `${type.name}.${name}`;
        // where `<x>` is the spec's code string (taxCode "3"), the record is `<x>Details` as the spec names that relation (tax_code_details)
        const isObject = [fields[base], fields[`${base}Details`]].some((s) => s && (isObjectType(getNamedType(s.type)) || isInterfaceType(getNamedType(s.type))));
        if (key in NOT_A_RECORD) {
          if (isObject) stale.push(key);
          continue;
        }
        if (!isObject) missing.push(key);
      }
    }
    expect(missing, 'give these ids their object field (t.relation, or t.prismaField with recordById / loadUser), or say in NOT_A_RECORD why they name no record').toEqual([]);
    expect(stale, 'these have their object field now: take them off NOT_A_RECORD').toEqual([]);
    for (const key of Object.keys(NOT_A_RECORD)) {
      const [type, field] = key.split('.');
      expect((schema.getType(type) as { getFields?(): Record<string, unknown> })?.getFields?.()[field], `${key} in NOT_A_RECORD no longer exists`).toBeDefined();
    }
  });

  it('"one enum" of dimension types: DimensionType is the only enum with dimension values, every dimension field uses it', () => {
    const enums = Object.values(schema.getTypeMap()).filter((t) => isEnumType(t) && !t.name.startsWith('__'));
    const dimensional = enums.filter((e) => isEnumType(e) && e.getValues().some((v) => ['BUSINESS_PARTNER', 'businesspartner', 'BANK_ACCOUNT', 'bankacc'].includes(v.name)));
    expect(dimensional.map((e) => e.name)).toEqual(['DimensionType']);
    expect(schema.getType('DimensionKind')).toBeUndefined();
    const uses: string[] = [];
    for (const type of objectTypes()) {
      for (const field of Object.values((type as { getFields(): Record<string, GraphQLField<unknown, unknown>> }).getFields())) {
        if (getNamedType(field.type).name === 'DimensionType') uses.push(`${type.name}.${field.name}`);
      }
    }
    expect(uses).toEqual(expect.arrayContaining(['Account.mandatoryDimensions', 'LineDimension.type', 'ReportRelation.relationType']));
  });

  it('each DimensionType value spelled on REST is the line dimension type it maps to (spec 001: businesspartner, bankacc, …)', () => {
    const type = schema.getType('DimensionType');
    if (!isEnumType(type)) throw new Error('DimensionType is no enum');
    const spelled = Object.fromEntries(type.getValues().flatMap((v) => (typeof v.extensions?.wire === 'string' ? [[v.extensions.wire, v.name]] : [])));
    expect(spelled).toEqual(Object.fromEntries(Object.entries(DIMENSION_KINDS).map(([kind, k]) => [kind, k.mandatory])));
  });
});
