/**
 * The external services of spec 002, by the neutral names the spec gives them ("Naming of external
 * services"). Each has a connector (a typed HTTP client at a configurable base URL, connector.ts) and
 * a sandbox (a simulator of its API, sandbox/), which answers when no URL is configured.
 */
export const INTEGRATION_SERVICES = ['govportal', 'taxauthority', 'idprovider', 'dialogplatform', 'einvoice', 'providerb'] as const;
export type IntegrationService = (typeof INTEGRATION_SERVICES)[number];

export const SERVICE_TITLES: Readonly<Record<IntegrationService, string>> = {
  govportal: 'the government services portal',
  taxauthority: 'the tax authority',
  idprovider: 'the national login service',
  dialogplatform: 'the government dialog platform',
  einvoice: 'the e-invoicing network',
  providerb: 'the second bank integration provider',
};
