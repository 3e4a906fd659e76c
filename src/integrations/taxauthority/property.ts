import { z } from 'zod';
import type { Connector } from '../connector.ts';

/**
 * The tax authority's property search (spec 002 "GET /integrations/taxauthority/eiendom/soek/
 * {inntektsaar}"): GET /eiendom/soek/{inntektsaar}?query=… with a system-user token of the scope
 * taxauthority:eiendom (POST /systemuser/token at the portal). The answer is passed on unchanged;
 * only its outline (`eiendommer`, an array) is checked.
 */
const resultSchema = z.looseObject({ eiendommer: z.array(z.looseObject({})) });

export function searchProperties(c: Connector, r: { inntektsaar: number; query: string; token: string }): Promise<z.infer<typeof resultSchema>> {
  return c.call(resultSchema, 'GET', `/eiendom/soek/${r.inntektsaar}`, { token: r.token, query: { query: r.query } });
}
