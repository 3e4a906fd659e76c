import { z } from 'zod';
import { pageArgs, type PageLimits } from '../../shared/pagination.ts';
import { flag, id, immutable, optionalText, text } from '../../shared/validation.ts';
import { CHANGE_TYPES } from '../changes/changes.rules.ts';

export const WEBHOOK_PAGE_LIMITS: PageLimits = { defaultPerPage: 25, maxPerPage: 100 };
export const DELIVERY_PAGE_LIMITS: PageLimits = { defaultPerPage: 25, maxPerPage: 100 };

/** pending: to be (re)tried; succeeded: a 2xx came back; failed: every attempt of the schedule failed, or the webhook was disabled */
export const DELIVERY_STATUSES = ['pending', 'succeeded', 'failed'] as const;

/**
 * The retry schedule after a failed attempt (Standard Webhooks' example: 5 s, 5 min, 30 min, 2 h,
 * 5 h, 10 h, 10 h): eight attempts over 27 h 35 min, more than the 24 h the issue asks for.
 */
export const DEFAULT_RETRY_DELAYS_MS: readonly number[] = [5_000, 300_000, 1_800_000, 7_200_000, 18_000_000, 36_000_000, 36_000_000];
/** one attempt's deadline: the whole exchange */
export const DELIVERY_TIMEOUT_MS = 5_000;
/** a webhook whose deliveries have failed this long without a success in between is disabled */
export const DISABLE_AFTER_MS = 3 * 24 * 3600_000;
/** after a rotation the previous secret still signs this long */
export const SECRET_OVERLAP_MS = 24 * 3600_000;

const types = z
  .array(z.string().refine((t) => CHANGE_TYPES.includes(t), { message: 'is not a change type (see the README, "Change types")' }))
  .max(100, 'at most 100 types')
  .nullish();

const webhookFields = {
  url: text(2000).min(1, 'is required'),
  types,
  description: optionalText(500),
};

export const webhookRules = {
  list: z.object({ clientAccountId: id, ...pageArgs }),
  create: z.object({ input: z.object({ clientAccountId: id, ...webhookFields }) }),
  update: z.object({
    id,
    /** omitted fields keep their value; enabled true re-enables a disabled webhook */
    input: z.object(webhookFields).partial().extend({ clientAccountId: immutable, enabled: flag }),
  }),
  deliveries: z.object({ webhookId: id, ...pageArgs }),
  retry: z.object({ webhookId: id, deliveryId: id }),
};
