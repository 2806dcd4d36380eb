// Wire shape of `metrics`: metrics/v1. Every measure carries its
// sample count, and a measure with no samples is null, never 0.

import { z } from 'zod'
import { DeliveryProgress } from '../shared/delivery.schema.js'

const Samples = z.number().int().min(0).describe('how many observations the measure rests on (0: the measure is null)')

const Ratio = (what: string) =>
  z.strictObject({
    value: z.number().min(0).nullable().describe(`${what}; null when there are no samples`),
    samples: Samples,
  })

export const FailureClasses = z.strictObject({
  reopened: z.number().int().min(0).describe('`reopened` log lines'),
  'lease-expired': z.number().int().min(0).describe('claims taken over from their holder (`taken-over`)'),
  'unverified-close': z
    .number()
    .int()
    .min(0)
    .describe('closes with --allow-unverified, or with criteria ticked without --verify (attested)'),
  'unlanded-override': z.number().int().min(0).describe('closes with --allow-unlanded (`unlanded`)'),
  blocked: z.number().int().min(0).describe('`blocked` log lines, a question that blocked the task included'),
})

export const MetricsDoc = z.strictObject({
  schema: z.literal('metrics/v1'),
  schema_version: z.literal(1),
  window: z
    .strictObject({
      since: z.string().nullable().describe('start of the window (RFC 3339 UTC), or null: all history'),
      until: z.string().describe('when it was measured'),
    })
    .describe('tasks count when they finished (were removed, for completion) at or after since'),
  tasks_finished: z.number().int().min(0).describe('done tasks whose last close falls in the window'),
  completion: Ratio('done ÷ (done + removed) in the window; samples = done + removed'),
  retry: Ratio('reopens per finished task; samples = finished tasks'),
  failures: z.strictObject({
    classes: FailureClasses.nullable().describe('counts by class over the finished tasks’ histories'),
    samples: Samples,
  }),
  wall_time: z.strictObject({
    median_seconds: z.number().min(0).nullable().describe('first claim → last close, the median'),
    total_seconds: z.number().min(0).nullable(),
    samples: Samples.describe('finished tasks with a recorded claim'),
  }),
  tokens: z.strictObject({
    output: z.number().int().min(0).nullable().describe('output tokens reported with task done/accept --tokens'),
    samples: Samples.describe('finished tasks that reported tokens'),
    budget: z
      .number()
      .int()
      .min(0)
      .nullable()
      .describe('the token budget of those tasks; null: no command records a budget yet'),
    budget_samples: Samples,
  }),
  human_intervention: Ratio('answered questions per finished task; samples = finished tasks'),
  delivery: DeliveryProgress,
})

export const documents = { 'metrics/v1': MetricsDoc }
export type MetricsDocT = z.infer<typeof MetricsDoc>
