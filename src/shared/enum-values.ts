/** A GraphQL enum's values from a rules list, each with its description (a value missing from either is a type error). */
export const described = <T extends string>(values: readonly T[], descriptions: Record<T, string>) =>
  Object.fromEntries(values.map((v) => [v, { description: descriptions[v] }])) as Record<T, { description: string }>;
