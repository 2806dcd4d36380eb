// The wire shape of a skipped file, shared by every document that lists objects (announce every omission).

import { z } from 'zod'

const SkippedItem = z.strictObject({
  path: z.string(),
  reason: z.string(),
  code: z
    .string()
    .describe(
      "why, as `dacli doctor`'s finding code: unparseable-object, invalid-id, invalid-field, invalid-utf8, symlink-in-workspace, special-file, unreadable-path, duplicate-task-file, interrupted-move, forged-event, duplicate-event",
    ),
})

export const Skipped = z.array(SkippedItem)

/** Spread beside a paged document's `skipped`: a page lists at most its limit of them, this counts them all. */
export const SkippedTotal = {
  skipped_total: z
    .number()
    .int()
    .describe(
      'every file skipped; with --limit, `skipped` lists at most that many of them (`dacli doctor` names each)',
    ),
}
