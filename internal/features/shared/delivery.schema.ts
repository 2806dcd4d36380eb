// Delivery progress as `metrics` and `overview` publish it (both carry the same `delivery` block).

import { z } from 'zod'
import { DELIVERY_STATES, STAGES } from '../../domain/delivery/kinds.js'

const Count = z.number().int().min(0).nullable()

export const DeliveryProgress = z
  .array(
    z.strictObject({
      project: z.string(),
      states: z
        .strictObject(
          Object.fromEntries(DELIVERY_STATES.map((s) => [s, Count])) as Record<
            (typeof DELIVERY_STATES)[number],
            typeof Count
          >,
        )
        .describe(
          'tasks per delivery state: open (nobody owns it), claimed, pr_open (pr open noted a pull request), ready, landed (done with a landed commit), released; null: a state dacli does not observe from the task files (ready, released)',
        ),
      lead_time: z.strictObject(
        Object.fromEntries(
          STAGES.map((s) => [
            s,
            z.strictObject({
              median_seconds: z.number().min(0).nullable().describe('null when no task went through this stage'),
              samples: z.number().int().min(0),
            }),
          ]),
        ) as Record<
          (typeof STAGES)[number],
          z.ZodObject<{ median_seconds: z.ZodNullable<z.ZodNumber>; samples: z.ZodNumber }, z.core.$strict>
        >,
      ),
    }),
  )
  .describe('delivery progress per project, from the task files (no git, no GitHub)')
