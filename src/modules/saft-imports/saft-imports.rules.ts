import { z } from 'zod';
import { pageArgs } from '../../shared/pagination.ts';
import { flag, id, nonEmptyText } from '../../shared/validation.ts';

/** An import's states, in order (GraphQL SaftImportStatus; REST the same words). */
export const SAFT_IMPORT_STATUSES = ['QUEUED', 'RUNNING', 'COMPLETED', 'FAILED'] as const;
export type SaftImportStatus = (typeof SAFT_IMPORT_STATUSES)[number];

/** The most bytes an upload may have (an XML file or a ZIP holding one); the XML inside is bounded apart (saft-file.ts). */
export const MAX_SAFT_UPLOAD_BYTES = 6 * 1024 * 1024; // as MAX_SAFT_XML_BYTES (saft-file.ts): what the whole-file import is measured to survive

export const saftImportRules = {
  start: z.object({
    clientAccountId: id,
    fileName: nonEmptyText(255),
    content: z.instanceof(Buffer, { error: 'is required: the SAF-T file (XML, or a ZIP holding one)' }),
    /** true: check and map everything, write nothing; the summary and every problem are the answer */
    dryRun: flag,
    /** true: take a file of another company (organisation number) than the client account's */
    allowOtherOrganization: flag,
  }),
  get: z.object({ id }),
  list: z.object({ clientAccountId: id, ...pageArgs }),
};
