// Wire shapes of the shortcut slice.

import { z } from 'zod'

const Param = z.strictObject({
  name: z.string(),
  required: z.boolean().describe('true when the parameter has no default'),
  default: z.string().nullable(),
  description: z.string().nullable(),
})

const StepDecl = z.strictObject({
  n: z.number().int().describe('position, from 1'),
  line: z.number().int().describe('the line of the shortcut file'),
  text: z.string().describe('the step as written, placeholders unexpanded'),
  path: z.string().describe('the command it runs'),
  mutates: z.boolean().describe('the step writes: running it needs --confirm and a read-write grant'),
})

export const ShortcutDoc = z.strictObject({
  schema: z.literal('shortcut/v1'),
  name: z.string(),
  path: z.string(),
  title: z.string(),
  description: z.string().nullable(),
  params: z.array(Param),
  steps: z.array(StepDecl),
  mutates: z.boolean().describe('some step writes'),
})

export const ShortcutListDoc = z.strictObject({
  schema: z.literal('shortcut-list/v1'),
  shortcuts: z.array(
    z.strictObject({
      name: z.string(),
      title: z.string(),
      params: z.array(z.string()),
      steps: z.number().int(),
      mutates: z.boolean(),
    }),
  ),
  skipped: z
    .array(z.strictObject({ name: z.string(), reason: z.string() }))
    .describe('shortcut files refused at load (the reason names the file and the line): fix them by hand'),
})

export const ShortcutRunDoc = z.strictObject({
  schema: z.literal('shortcut-run/v1'),
  shortcut: z.string(),
  path: z.string(),
  dry_run: z.boolean().describe('the steps were resolved and shown, not run'),
  params: z.record(z.string(), z.string()).describe('the value of every parameter, given or defaulted'),
  steps: z.array(
    z.strictObject({
      n: z.number().int(),
      path: z.string(),
      command: z.string().describe('the resolved command line, for people'),
      argv: z.array(z.string()).describe('the words after `dacli` the step runs (flags as --name=value)'),
      mutates: z.boolean(),
      outcome: z.enum(['planned', 'ok']).describe('planned (a dry run) or ok (it ran and exited 0)'),
      exit_code: z.number().int().nullable(),
      document: z
        .unknown()
        .nullable()
        .describe('the step’s --json document (under --json, for a command that has one), else null'),
    }),
  ),
})

export const documents = {
  'shortcut/v1': ShortcutDoc,
  'shortcut-list/v1': ShortcutListDoc,
  'shortcut-run/v1': ShortcutRunDoc,
}

export type ShortcutDocT = z.infer<typeof ShortcutDoc>
export type ShortcutListDocT = z.infer<typeof ShortcutListDoc>
export type ShortcutRunDocT = z.infer<typeof ShortcutRunDoc>
