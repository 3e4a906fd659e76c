import { describe, expect, it } from 'vitest';
import {
  isIndustryCode,
  isManageable,
  isProviderIndustryCode,
  providerChangeError,
  roleNeedsProvider,
  slugify,
} from '../../src/modules/client-accounts/client-accounts.rules.ts';
import { organizationNumber, parse } from '../../src/shared/validation.ts';

/** The organization number shape every module uses (client accounts, business partners). */
const normalizeOrganizationNumber = (value: string | null) => parse(organizationNumber, value);

describe('client account rules', () => {
  it.each([
    ['69.201', true],
    ['69.202', true],
    ['69.2', true],
    ['69.20', true],
    ['69.101', false],
    ['70.220', false],
    ['47.291', false],
    [null, false],
    ['', false],
  ])('"a provider account has industry code 69.2xx": %j -> %s', (code, provider) => {
    expect(isProviderIndustryCode(code)).toBe(provider);
  });

  it.each([
    ['69.201', true],
    ['01.1', true],
    ['6920', false],
    ['69.2011', false],
    ['a9.201', false],
  ])('"industry codes are SN2007 NN.N{1,3}": %j -> %s', (code, ok) => {
    expect(isIndustryCode(code)).toBe(ok);
  });

  it('"AA and BK only on provider accounts"', () => {
    expect((['AA', 'BK', 'CA', 'EM'] as const).filter(roleNeedsProvider)).toEqual(['AA', 'BK']);
  });

  it.each([
    [{ managerMemberships: 1, staffedProviders: 0 }, true],
    [{ managerMemberships: 0, staffedProviders: 1 }, true],
    [{ managerMemberships: 0, staffedProviders: 0 }, false],
  ])('"someone must remain able to manage an account": %j -> %s', (state, ok) => {
    expect(isManageable(state)).toBe(ok);
  });

  it.each([
    ['69.201', '47.291', { staffMemberships: 1, servedAccounts: 0 }, /AA\/BK memberships/],
    ['69.201', null, { staffMemberships: 0, servedAccounts: 2 }, /serves other client accounts/],
    ['69.201', '47.291', { staffMemberships: 0, servedAccounts: 0 }, null],
    ['69.201', '69.202', { staffMemberships: 3, servedAccounts: 3 }, null],
    ['47.291', '69.201', { staffMemberships: 0, servedAccounts: 0 }, null],
    [null, '47.291', { staffMemberships: 0, servedAccounts: 0 }, null],
  ])('"an industry code change may not make an account with AA/BK memberships (or served accounts) a non-provider": %s -> %s', (from, to, state, error) => {
    const result = providerChangeError(from, to, state);
    if (error) expect(result).toMatch(error);
    else expect(result).toBeNull();
  });

  it.each([
    ['Fjord Regnskap AS', 'fjord-regnskap-as'],
    ['Ærlig Øl & Å', 'aerlig-ol-a'],
    ['***', 'account'],
  ])('slugify %j -> %j', (name, slug) => {
    expect(slugify(name)).toBe(slug);
  });

  it.each([
    ['923609016', '923609016'],
    ['923 609 016', '923609016'],
    ['923.609.016', '923609016'],
    [null, null],
    ['', null],
  ])('"organization numbers are 9 digits with a mod-11 check digit": %j -> %j', async (value, normalized) => {
    expect(normalizeOrganizationNumber(value)).toBe(normalized);
  });

  it.each(['923609017', '12345678', '9236090160', 'ABCDEFGHI'])('"organization numbers are 9 digits with a mod-11 check digit": %j is rejected', async (value) => {
    expect(() => normalizeOrganizationNumber(value)).toThrow(expect.objectContaining({ code: 'common.validation_error' }));
  });
});
