// The error/v1 envelope's wire shape (the kernel writes it; see render.ts).

import { z } from 'zod'

const ErrorDoc = z.strictObject({
  schema: z.literal('error/v1'),
  ok: z.literal(false),
  exit_code: z.number().int().min(1).max(5),
  kind: z.enum(['failure', 'usage', 'refused', 'not_found', 'conflict']),
  message: z.string(),
  suggestions: z.array(z.string()).describe('complete command lines the caller may have meant; never executed'),
  next_actions: z.array(z.string()).describe('what to do next'),
  details: z
    .record(z.string(), z.unknown())
    .describe('typed facts: unknown_flags, owner, unmet, candidates, allowed, policy …'),
})

export const documents = { 'error/v1': ErrorDoc }
