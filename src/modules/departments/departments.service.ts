import type { Department } from '../../generated/prisma/client.ts';
import { dimensionRecords } from '../../shared/dimension-records.ts';
import type { PageLimits } from '../../shared/pagination.ts';
import { departmentRules } from './departments.rules.ts';

/** spec 001 "Departments": per_page 50 by default (the spec names no maximum; 100 as for items). */
export const DEPARTMENT_PAGE_LIMITS: PageLimits = { defaultPerPage: 50, maxPerPage: 100 };

/**
 * spec 001 "Departments": numbered per client account, names need not be unique, listed by number;
 * PUT or POST /departments/{id} change only the fields sent; DELETE or is_active false deactivates,
 * refused while an account with a mandatory department dimension has a balance for it.
 */
const departments = dimensionRecords<Department, typeof departmentRules>({
  model: 'department',
  what: 'Department',
  rules: departmentRules,
  pageLimits: DEPARTMENT_PAGE_LIMITS,
  orderBy: 'sequenceNumber',
  numbered: 'department',
  balanced: 'DEPARTMENT',
});

export const {
  list: listDepartments,
  get: getDepartment,
  create: createDepartment,
  update: updateDepartment,
  deactivate: deactivateDepartment,
} = departments;
