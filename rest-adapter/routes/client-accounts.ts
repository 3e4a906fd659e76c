// spec 001 "Department": `with=client_account` embeds {id, unique_name, display_name}; projects embed
// the same. Client accounts have no documented REST paths of their own, only this shape.
export const CLIENT_ACCOUNT_SUMMARY_FIELDS = /* GraphQL */ `
  fragment ClientAccountSummaryFields on ClientAccount {
    id
    unique_name: uniqueName
    display_name: displayName
  }`;
