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
