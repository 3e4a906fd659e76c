import { builder, tenantScoped } from '../../builder.ts';
import { AddressType } from '../../generated/prisma/enums.ts';
import {cursorArgs, nodesQuery, pageType } from '../../shared/page-type.ts';
import { listCost, pageCost } from '../../shared/query-limits.ts';
import { loadUser, UserRef } from '../users/users.types.ts';
import { businessPartnerRules as rules } from './business-partners.rules.ts';
import {
  BUSINESS_PARTNER_PAGE_LIMITS,
  createBusinessPartner,
  deactivateBusinessPartner,
  getBusinessPartner,
  listBusinessPartners,
  updateBusinessPartner,
} from './business-partners.service.ts';

export const AddressTypeEnum = builder.enumType('AddressType', {
  values: {
    POSTAL: { description: 'Postal (mailing) address' },
    DELIVERY: { description: 'Delivery address' },
    VISITING: { description: 'Visiting (street) address' },
  } as const,
});

export const BusinessPartnerAddress = builder.prismaObject('BusinessPartnerAddress', {
  description: 'One address of a business partner; at most one of each type.',
  fields: (t) => ({
    id: t.exposeInt('id'),
    businessPartner: t.relation('businessPartner'),
    businessPartnerId: t.exposeInt('businessPartnerId'),
    addressType: t.expose('addressType', { type: AddressTypeEnum }),
    line1: t.exposeString('line1', { nullable: true }),
    line2: t.exposeString('line2', { nullable: true }),
    postalCode: t.exposeString('postalCode', { nullable: true }),
    city: t.exposeString('city', { nullable: true }),
    countryCode: t.exposeString('countryCode', { description: 'ISO 3166-1 alpha-2' }),
  }),
});

export const BusinessPartner = builder.prismaObject('BusinessPartner', {
  ...tenantScoped,
  description: 'A customer, supplier, employee, shareholder, or the company itself.',
  fields: (t) => ({
    id: t.exposeInt('id'),
    clientAccount: t.relation('clientAccount'),
    clientAccountId: t.exposeInt('clientAccountId', { description: 'Immutable after creation' }),
    name: t.exposeString('name'),
    organizationNumber: t.exposeString('organizationNumber', { nullable: true, description: '9 digits' }),
    nationalIdNumber: t.exposeString('nationalIdNumber', { nullable: true, description: '11 digits' }),
    email: t.exposeString('email', { nullable: true }),
    phone: t.exposeString('phone', { nullable: true }),
    isCustomer: t.exposeBoolean('isCustomer'),
    isSupplier: t.exposeBoolean('isSupplier'),
    isEmployee: t.exposeBoolean('isEmployee'),
    isShareholder: t.exposeBoolean('isShareholder'),
    isSelf: t.exposeBoolean('isSelf', { description: "The client account's own company" }),
    isActive: t.exposeBoolean('isActive'),
    createdAt: t.expose('createdAt', { type: 'DateTime' }),
    createdById: t.exposeInt('createdById', { nullable: true }),
    updatedAt: t.expose('updatedAt', { type: 'DateTime' }),
    updatedById: t.exposeInt('updatedById', { nullable: true }),
    createdBy: t.field({ type: UserRef, nullable: true, resolve: (p, _a, ctx) => loadUser(ctx, p.createdById) }),
    updatedBy: t.field({ type: UserRef, nullable: true, resolve: (p, _a, ctx) => loadUser(ctx, p.updatedById) }),
    // at most one address per type
    addresses: t.relation('addresses', { extensions: listCost(Object.keys(AddressType).length), query: { orderBy: { addressType: 'asc' } } }),
    bankAccounts: t.relation('bankAccounts', {
      args: { isActive: t.arg.boolean({ defaultValue: true, description: 'true by default; null lists all' }) },
      query: (args) => ({ where: args.isActive == null ? {} : { isActive: args.isActive }, orderBy: { id: 'asc' } }),
    }),
  }),
});

const BusinessPartnerPage = pageType('BusinessPartnerPage', BusinessPartner);

// Field rules (numbers with check digits, email, addresses) are the arguments' schemas in business-partners.rules.ts.

const AddressInput = builder.inputType('BusinessPartnerAddressInput', {
  description: 'An address of the given type; on update it replaces the stored address of that type.',
  fields: (t) => ({
    addressType: t.field({ type: AddressTypeEnum, required: true }),
    line1: t.string(),
    line2: t.string(),
    postalCode: t.string(),
    city: t.string(),
    countryCode: t.string({ description: 'ISO 3166-1 alpha-2 in upper case; NO when omitted' }),
  }),
});

const partnerFields = (t: Parameters<Parameters<typeof builder.inputType>[1]['fields']>[0]) => ({
  organizationNumber: t.string({
    description: '9 digits with a valid mod-11 check digit; spaces are accepted and removed',
  }),
  nationalIdNumber: t.string({
    description: 'Norwegian national identity number (11 digits, both check digits)',
  }),
  email: t.string(),
  phone: t.string(),
  isCustomer: t.boolean(),
  isSupplier: t.boolean(),
  isEmployee: t.boolean(),
  isShareholder: t.boolean(),
  addresses: t.field({ type: [AddressInput], description: 'At most one address per type' }),
});

const CreateBusinessPartnerInput = builder.inputType('CreateBusinessPartnerInput', {
  fields: (t) => ({
    clientAccountId: t.int({ required: true }),
    name: t.string({ required: true, description: '1 to 250 characters' }),
    ...partnerFields(t),
  }),
});

const UpdateBusinessPartnerInput = builder.inputType('UpdateBusinessPartnerInput', {
  description:
    'Fields to change; omitted fields keep their value. Given address types are replaced, others kept. clientAccountId may be sent but not changed.',
  fields: (t) => ({
    clientAccountId: t.int({ description: 'Immutable: a different value is rejected' }),
    name: t.string(),
    isActive: t.boolean({ description: 'true reactivates a deactivated partner' }),
    ...partnerFields(t),
  }),
});

builder.queryFields((t) => ({

  businessPartners: t.field({
    type: BusinessPartnerPage,
    extensions: pageCost(BUSINESS_PARTNER_PAGE_LIMITS),
    description: 'Business partners of a client account (page-based; perPage 50 by default, at most 100).',
    args: {
      clientAccountId: t.arg.int({ required: true }),
      isCustomer: t.arg.boolean(),
      isSupplier: t.arg.boolean(),
      isEmployee: t.arg.boolean(),
      isShareholder: t.arg.boolean(),
      isActive: t.arg.boolean({ defaultValue: true, description: 'true by default; null lists all partners' }),
      freeText: t.arg.string({ description: 'Matches name and email (case-insensitive) and organization number' }),
      orderBy: t.arg.stringList({ description: 'Field names, - for descending: name, organization_number, email, created_at, updated_at, id' }),
      ...cursorArgs(t),
      page: t.arg.int(),
      perPage: t.arg.int(),
    },
    resolve: (_root, args, ctx, info) => listBusinessPartners(ctx, args, nodesQuery(ctx, info)),
  }),
  businessPartner: t.prismaField({
    nullable: true,
    type: 'BusinessPartner',
    args: { id: t.arg.int({ required: true }) },
    resolve: (query, _root, args, ctx) => getBusinessPartner(ctx, args, query),
  }),
}));

builder.mutationFields((t) => ({
  createBusinessPartner: t.prismaField({
    type: 'BusinessPartner',
    args: { input: t.arg({ type: CreateBusinessPartnerInput, required: true }) },
    resolve: (query, _root, args, ctx) => createBusinessPartner(ctx, args, query),
  }),
  updateBusinessPartner: t.prismaField({
    type: 'BusinessPartner',
    args: { id: t.arg.int({ required: true }), input: t.arg({ type: UpdateBusinessPartnerInput, required: true }) },
    resolve: (query, _root, args, ctx) => updateBusinessPartner(ctx, args, query),
  }),
  deactivateBusinessPartner: t.prismaField({
    type: 'BusinessPartner',
    description: 'Deactivates the partner; the record is kept. The company itself (isSelf) cannot be deactivated.',
    args: { id: t.arg.int({ required: true }) },
    resolve: (query, _root, args, ctx) => deactivateBusinessPartner(ctx, args, query),
  }),
}));
