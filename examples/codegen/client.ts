import { GraphQLClient } from 'graphql-request';
import { CreateProjectMutation, MeQuery, ProjectsQuery } from './operations';

// Typed calls: the variables are checked against the operation, and the result has its type.

export const client = (baseUrl: string, token: string) => new GraphQLClient(`${baseUrl}/graphql`, { headers: { Authorization: `Bearer ${token}` } });

export async function activeProjectNames(api: GraphQLClient, clientAccountId: number): Promise<string[]> {
  const { projects } = await api.request(ProjectsQuery, { clientAccountId });
  return projects.nodes.filter((p) => p.isActive).map((p) => p.name);
}

export async function whoAmI(api: GraphQLClient): Promise<{ email: string; canWrite: boolean }> {
  const { me } = await api.request(MeQuery);
  return { email: me.user.email, canWrite: me.scopes.includes('write') };
}

export async function createProject(api: GraphQLClient, clientAccountId: number, name: string): Promise<number> {
  const { createProject } = await api.request(CreateProjectMutation, { input: { clientAccountId, name } });
  return createProject.id;
}
