import type { Project } from '../../generated/prisma/client.ts';
import { dimensionRecords } from '../../shared/dimension-records.ts';
import type { PageLimits } from '../../shared/pagination.ts';
import { projectRules } from './projects.rules.ts';

/** spec 001 "Projects": per_page 50 by default (the spec names no maximum; 100 as for items). */
export const PROJECT_PAGE_LIMITS: PageLimits = { defaultPerPage: 50, maxPerPage: 100 };

/**
 * spec 001 "Projects": numbered per client account, names unique within it, listed by number
 * (filtered by part of the name); DELETE or is_active false deactivates, refused while an account
 * with a mandatory project dimension has a balance for it.
 */
const projects = dimensionRecords<Project, typeof projectRules>({
  model: 'project',
  what: 'Project',
  rules: projectRules,
  pageLimits: PROJECT_PAGE_LIMITS,
  orderBy: 'sequenceNumber',
  numbered: 'project',
  uniqueName: true,
  balanced: 'PROJECT',
});

export const { list: listProjects, get: getProject, create: createProject, update: updateProject, deactivate: deactivateProject } = projects;
