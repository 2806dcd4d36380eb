// Wire shapes of the agent slice (identities).

import { z } from 'zod'
import { Skipped } from '../../clikit/skipped.schema.js'
import { AGENT_EVENTS_SHOWN } from './limits.js'

export const IdentityDoc = z.strictObject({
  schema: z.literal('identity/v1'),
  id: z.string().describe('a-root, or a spawned agent id'),
  grant: z.enum(['rw', 'ro']),
  role: z.string().nullable(),
  display_name: z.string().nullable().describe('for a-root, user.name from the git config; display only'),
  parent: z.string().nullable(),
  workspace: z
    .strictObject({
      root: z.string().describe('the folder holding .dacli/'),
      dir: z.string().describe('the .dacli/ folder in use'),
      worktree: z.string().nullable().describe('the git work tree dacli was run from; null outside git'),
      linked: z.boolean().describe('run from a linked worktree, which shares the main worktree’s store'),
    })
    .describe('the store this identity acts on'),
  clone: z
    .string()
    .nullable()
    .describe(
      'this clone’s id (c-<16 hex>), kept in its git directory and never committed; it is part of every remote claim this clone makes; null outside git',
    ),
})

export type IdentityDocT = z.infer<typeof IdentityDoc>

const AgentItem = {
  id: z.string(),
  grant: z.enum(['rw', 'ro']),
  role: z.string().nullable(),
  parent: z.string().nullable(),
  retired: z.boolean(),
  created: z.string().nullable(),
  refused: z
    .string()
    .nullable()
    .describe(
      'why its token does not resolve although its file says live — the file tampered with, its key untrusted, an ancestor retired, its retirement remembered — or null',
    ),
}

export const AgentTokenDoc = z.strictObject({
  schema: z.literal('agent-token/v1'),
  id: z.string(),
  grant: z.enum(['rw', 'ro']),
  role: z.string().nullable(),
  parent: z.string(),
  token: z.string().describe('shown once; only its SHA-256 is stored. Use it as DACLI_AGENT'),
})

export const AgentListDoc = z.strictObject({
  schema: z.literal('agent-list/v1'),
  agents: z.array(z.strictObject(AgentItem)),
  all: z.boolean().describe('retired identities are included'),
  skipped: Skipped.describe('agent files that cannot be read (their tokens are refused; dacli doctor says why)'),
})

export const AgentDoc = z.strictObject({
  schema: z.literal('agent/v1'),
  ...AgentItem,
  created_by: z.string().nullable(),
  lineage: z.array(z.string()).describe('ancestors, parent first, up to a-root'),
  retirement: z
    .strictObject({
      by: z.string().nullable(),
      at: z.string().nullable(),
      signed: z
        .boolean()
        .describe('signed by one who may retire it (itself, an ancestor, root); false: a hand edit, see dacli doctor'),
    })
    .nullable()
    .describe('who retired it and when, as its file says; null when its file does not say retired'),
  children: z.array(z.string()),
  tasks_owned: z.array(z.strictObject({ id: z.string(), ref: z.string(), status: z.string(), title: z.string() })),
  changed: z.boolean().describe('for `agent retire`: false when it was already retired and nothing was released'),
  released: z
    .array(z.strictObject({ id: z.string(), ref: z.string(), status: z.string() }))
    .describe('for `agent retire --release`: the tasks handed back to the pool (owner and claim cleared, logged)'),
  events: z
    .array(
      z.strictObject({
        id: z.string(),
        kind: z.string().describe('claim, release, finding, propose-status, comment, block, dependency or question'),
        state: z.enum(['pending', 'applied', 'dismissed']),
        created: z.string(),
        about: z.string().nullable().describe('the task it is about, as a reference (its id when the task is gone)'),
        path: z.string(),
      }),
    )
    .describe(
      `the events it wrote and signed, newest first, at most ${AGENT_EVENTS_SHOWN} (events_total counts them all)`,
    ),
  events_total: z.number().int(),
  path: z.string(),
})

export const documents = {
  'identity/v1': IdentityDoc,
  'agent-token/v1': AgentTokenDoc,
  'agent-list/v1': AgentListDoc,
  'agent/v1': AgentDoc,
}

export type AgentTokenDocT = z.infer<typeof AgentTokenDoc>
export type AgentListDocT = z.infer<typeof AgentListDoc>
export type AgentDocT = z.infer<typeof AgentDoc>
