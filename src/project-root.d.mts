export const PROJECT_ROOT: string;
