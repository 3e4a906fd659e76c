import { z } from 'zod';
import { SpooledUpload } from '../../shared/scalars.ts';
import { pageArgs } from '../../shared/pagination.ts';
import { flag, id, nonEmptyText } from '../../shared/validation.ts';

/** An import's states, in order (GraphQL SaftImportStatus; REST the same words). */
export const SAFT_IMPORT_STATUSES = ['QUEUED', 'RUNNING', 'COMPLETED', 'FAILED'] as const;
export type SaftImportStatus = (typeof SAFT_IMPORT_STATUSES)[number];

/**
 * The most bytes an upload may have (an XML file or a ZIP holding one): 100 MiB, spooled to a
 * temporary file, never held (a 1,000,000-line file is ~18 MB zipped, ~320 MB of XML: send XML that
 * large zipped). The XML inside a ZIP is bounded apart (MAX_SAFT_XML_BYTES, saft-file.ts).
 */
export const MAX_SAFT_UPLOAD_BYTES = 100 * 1024 * 1024;

export const saftImportRules = {
  start: z.object({
    clientAccountId: id,
    fileName: nonEmptyText(255),
    content: z.union([z.instanceof(Buffer), z.instanceof(SpooledUpload)], { error: 'is required: the SAF-T file (XML, or a ZIP holding one)' }),
    /** true: check and map everything, write nothing; the summary and every problem are the answer */
    dryRun: flag,
    /** true: take a file of another company (organisation number) than the client account's */
    allowOtherOrganization: flag,
  }),
  get: z.object({ id }),
  list: z.object({ clientAccountId: id, ...pageArgs }),
};
