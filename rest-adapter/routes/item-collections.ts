import type { RouteDefinition } from '../define-route.ts';

export const itemCollectionRoutes: RouteDefinition[] = [];
