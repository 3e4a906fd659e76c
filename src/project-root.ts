export { PROJECT_ROOT } from './project-root.mjs';
