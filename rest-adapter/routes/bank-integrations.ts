import { base64Pdf, defineOperations } from '../operation.ts';

// spec 002 "Integration records" (Bank) and the banks, einvoice and providerb rows of "Integrations";
// every error as {error, status}

const BANK_STATUS_FIELDS = /* GraphQL */ `
  is_active: isActive
  is_connected: isConnected
  integration_config: integrationConfig
  onboarding_information: onboardingInformation`;

/** GET …/pdf-forms/{form_type} answers the PDF itself; the GraphQL field carries it base64. */
const pdfForm = base64Pdf("The form as a PDF, filled with the company's data (name, organization number, its accounts at the bank, the date) and signature fields.");

export const bankIntegrationOperations = defineOperations([
  {
    method: 'GET',
    path: '/integrations/banks',
    summary:
      'List the supported banks (bic, organization {id, name, logo, website, country}). With client_account_id, each bank also has status {is_active, is_connected}, integration_config and onboarding_information (left out when empty) for that account.',
    document: /* GraphQL */ `
      query ListBanks($clientAccountId: Int) {
        banks(clientAccountId: $clientAccountId) {
          bic
          organization { id name logo website country }
          status { is_active: isActive is_connected: isConnected }
          integration_config: integrationConfig
          onboarding_information: onboardingInformation
        }
      }`,
    omitWhenNull: ['status', 'integration_config', 'onboarding_information'],
  },
  {
    method: 'GET',
    path: '/integrations/banks/:bic/status',
    summary:
      "A bank integration's state at a client account (client_account_id required): {is_active, is_connected, integration_config, onboarding_information}; onboarding_information is left out when empty. 400 missing id or invalid BIC; 403; 404 unsupported bank.",
    document: /* GraphQL */ `
      query GetBankIntegrationStatus($bic: String!, $clientAccountId: Int!) {
        bankIntegrationStatus(bic: $bic, clientAccountId: $clientAccountId) { ${BANK_STATUS_FIELDS} }
      }`,
    omitWhenNull: ['onboarding_information'],
  },
  {
    method: 'PATCH',
    path: '/integrations/banks/:bic/status',
    summary:
      'Enable or disable a bank integration for a client account (client_account_id required). Body: is_active (boolean, required), integration_config (object, optional: replaces the stored one). Handelsbanken (HANDNOKKXXX) needs integration_config.division_number and division_name (strings) when enabling. Enabling needs an active bank account of the company with that bank’s BIC and adds the BANK_INTEGRATION billing add-on; disabling removes the add-on when no other bank is active. 400; 403; 404 unsupported bank.',
    document: /* GraphQL */ `
      mutation UpdateBankIntegrationStatus($bic: String!, $clientAccountId: Int!, $input: UpdateBankIntegrationStatusInput!) {
        updateBankIntegrationStatus(bic: $bic, clientAccountId: $clientAccountId, input: $input) { ${BANK_STATUS_FIELDS} }
      }`,
    omitWhenNull: ['onboarding_information'],
  },
  {
    method: 'GET',
    path: '/integrations/banks/:bic/pdf-forms/:form_type',
    summary:
      "Download a bank's PDF form (form_type integration-agreement) filled with the company's data, for client_account_id (required). 400 missing id or invalid BIC; 403; 404 unsupported bank or form type.",
    document: /* GraphQL */ `
      query GetBankPdfForm($bic: String!, $formType: String!, $clientAccountId: Int!) {
        bankPdfForm(bic: $bic, formType: $formType, clientAccountId: $clientAccountId) { file_name: fileName content_type: contentType content_base64: contentBase64 }
      }`,
    representations: pdfForm,
  },
  {
    method: 'GET',
    path: '/integrations/einvoice/status',
    summary:
      "E-invoicing status. With client_account_id: {is_active, connected}; without: {statuses: [{client_account_id, is_active, connected}]} over the caller's eligible client accounts. connected: registered as a receiver in the e-invoicing network.",
    document: /* GraphQL */ `
      query GetEinvoiceStatus($clientAccountId: Int) {
        einvoiceStatus(clientAccountId: $clientAccountId) {
          is_active: isActive
          connected
          statuses { client_account_id: clientAccountId is_active: isActive connected }
        }
      }`,
    omitWhenNull: ['is_active', 'connected', 'statuses'],
  },
  {
    method: 'PATCH',
    path: '/integrations/einvoice/status',
    summary:
      'Activate or deactivate e-invoicing for a client account (client_account_id required). Body: is_active (boolean, required). Activating registers the organisation (organization number required) as a receiver in the e-invoicing network; deactivating removes it. Returns {is_active, connected}. 400; 403; 500 when the network fails (nothing is changed).',
    document: /* GraphQL */ `
      mutation UpdateEinvoiceStatus($clientAccountId: Int!, $input: UpdateEinvoiceStatusInput!) {
        updateEinvoiceStatus(clientAccountId: $clientAccountId, input: $input) { is_active: isActive connected }
      }`,
  },
  {
    method: 'GET',
    path: '/integrations/providerb/status',
    summary:
      "Providerb (the second bank integration provider) status by client_account_id or bank_account_id (at least one; a bank account's client account is derived, both given must agree): {is_active, is_connected, onboarding_information}. The first call for an account creates its onboarding at providerb. 400; 403; 404; 500 when providerb fails.",
    document: /* GraphQL */ `
      query GetProviderbStatus($clientAccountId: Int, $bankAccountId: Int) {
        providerbStatus(clientAccountId: $clientAccountId, bankAccountId: $bankAccountId) {
          is_active: isActive
          is_connected: isConnected
          onboarding_information: onboardingInformation
        }
      }`,
    // bank_account_id names a record: 404 when there is none
    bodyNamesRecords: true,
  },
]);
