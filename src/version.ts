import { readFileSync } from 'node:fs';

/** The package version (MCP server info, OpenAPI info.version). */
export const PACKAGE_VERSION: string = (JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version: string }).version;
