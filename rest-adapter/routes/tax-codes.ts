// Tax codes have no REST endpoints of their own; this is their shape when embedded
// (items `with=tax_code`, item collection entries `with=tax_code_details`).
export const TAX_CODE_FIELDS = /* GraphQL */ `
  fragment TaxCodeFields on TaxCode {
    id
    code
    standard_tax_code: standardTaxCode
    name
    direction
    rate
    valid_from: validFrom
    valid_to: validTo
    is_active: isActive
  }`;
