import { graphql } from './gql';

// The operations a front end ships, written once with `graphql()`: codegen turns each into a typed
// document (its result and variables), and lists them in persisted-documents.json by hash.

export const ProjectsQuery = graphql(`
  query Projects($clientAccountId: Int!, $name: String) {
    projects(clientAccountId: $clientAccountId, name: $name) {
      nodes {
        id
        name
        isActive
      }
    }
  }
`);

export const MeQuery = graphql(`
  query Me {
    me {
      user {
        id
        email
      }
      scopes
    }
  }
`);

export const CreateProjectMutation = graphql(`
  mutation CreateProject($input: CreateProjectInput!) {
    createProject(input: $input) {
      id
      name
      sequenceNumber
    }
  }
`);
