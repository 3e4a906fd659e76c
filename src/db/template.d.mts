export const TEMPLATE_DIR: string;
export type TemplateKind = 'demo' | 'base';
export function osloDay(now?: Date): string;
export function usableTemplate(program: string, options: { demo: boolean; today?: string }): TemplateKind | undefined;
export function copyTemplate(kind: TemplateKind, target: string): Promise<void>;
export function buildTemplates(): void;
