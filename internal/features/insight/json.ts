// Wire shapes of the insight slice.

import { z } from 'zod'
import { PageFields } from '../../clikit/page.schema.js'
import { Skipped } from '../../clikit/skipped.schema.js'
import { ViewAge } from '../shared/remoteclaim.schema.js'

const Counts = z.strictObject({
  open: z.number().int(),
  active: z.number().int(),
  blocked: z.number().int(),
  done: z.number().int(),
})
const Priority = z.enum(['must', 'should', 'could', 'wont']).nullable()

export const StatusDoc = z.strictObject({
  schema: z.literal('workspace-status/v1'),
  workspace: z.strictObject({
    id: z.string(),
    name: z.string(),
    root: z.string().describe('the folder holding .dacli/'),
    dir: z.string().describe('the .dacli/ folder in use'),
    worktree: z.string().nullable().describe('the git work tree dacli was run from; null outside git'),
    linked: z.boolean().describe('run from a linked worktree, which shares the main worktree’s store'),
  }),
  identity: z.strictObject({ id: z.string(), grant: z.enum(['rw', 'ro']), role: z.string().nullable() }),
  projects: z.array(z.strictObject({ slug: z.string(), title: z.string(), counts: Counts })),
  totals: Counts,
  pending_events: z.number().int().describe('proposals waiting for sync (questions are counted apart)'),
  open_questions: z.number().int().describe('questions waiting for a person (dacli threads --open)'),
  record_conflicts: z
    .array(
      z.strictObject({
        path: z.string().describe('the conflict copy (theirs), <file>.conflict-<commit>'),
        of: z.string().describe('the file it is the other side of (ours, in place)'),
      }),
    )
    .describe('copies left by record pull for files changed on both sides; record push refuses until resolved'),
  skipped: Skipped,
})

export const OverviewDoc = z.strictObject({
  schema: z.literal('workspace-overview/v1'),
  version: z.literal(1),
  projects: z.number().int(),
  tasks: z.number().int(),
  counts: Counts,
  wip: z.strictObject({
    active: z.number().int(),
    capacity: z.number().int().nullable().describe('wip_limit in config.yml; null when unset'),
  }),
  pending_events: z.number().int().describe('proposals waiting for sync (questions are counted apart)'),
  open_questions: z.number().int().describe('questions waiting for a person (dacli threads --open)'),
  live_agents: z.number().int().describe('identities holding a live claim'),
  record_conflicts: z
    .number()
    .int()
    .describe('unresolved conflict copies left by record pull (record push refuses until resolved; see status)'),
  ready_now: z
    .array(
      z.strictObject({ id: z.string(), ref: z.string(), title: z.string(), priority: Priority, command: z.string() }),
    )
    .max(3),
  held_back: z
    .number()
    .int()
    .describe('ready tasks not offered because their paths overlap work in progress (dacli next lists them)'),
  remote_claims: z
    .strictObject({
      remote: z.string().describe('the git remote arbitrating claims, as last fetched'),
      fetched_at: z.string().nullable().describe('the last whole fetch of its claims; null: only single claims seen'),
      fetch_age_seconds: z.number().int().nullable(),
      live: z
        .array(
          z.strictObject({
            id: z.string(),
            ref: z.string().nullable().describe('the task in this clone; null: not here (dacli record pull)'),
            by: z.string(),
            expires: z.string().nullable(),
            host: z.string(),
            workspace: z.string(),
            this_clone: z.boolean(),
            ...ViewAge,
          }),
        )
        .describe('claims the remote holds with a live lease, as last seen, each dated by its sighting'),
    })
    .nullable()
    .describe(
      'what the remote arbitrating claims holds, as last fetched (dacli claims list, next --fetch); null: never fetched',
    ),
})

export const NextDoc = z.strictObject({
  schema: z.literal('next/v1'),
  project: z.string().nullable(),
  parallel: z.number().int(),
  ready: z.array(
    z.strictObject({
      id: z.string(),
      ref: z.string(),
      title: z.string(),
      priority: Priority,
      slack: z.number().nullable().describe('critical-path slack, when every task in scope is sized'),
      critical: z.boolean(),
      command: z.string(),
    }),
  ),
  waiting: z
    .array(
      z.strictObject({
        ref: z.string(),
        on: z.array(z.string()),
        holds: z
          .array(
            z.strictObject({
              ref: z.string().describe('the predecessor (as written when it does not resolve)'),
              type: z.enum(['FS', 'SS', 'FF', 'SF']),
              status: z.enum(['open', 'active', 'blocked', 'done']).nullable().describe('null: does not resolve'),
              needs: z.enum(['done', 'started']).describe('FS needs done; SS needs started (active or done)'),
            }),
          )
          .describe('the links holding the start: FS until the predecessor is done, SS until it has started'),
      }),
    )
    .describe('open tasks whose start a dependency holds'),
  held_back: z
    .array(
      z.strictObject({
        id: z.string(),
        ref: z.string(),
        title: z.string(),
        priority: Priority,
        reason: z.string().describe('in words: overlaps api/3 on src/auth/**'),
        overlaps: z.array(
          z.strictObject({
            id: z.string(),
            ref: z.string().describe('the task it overlaps'),
            holder: z.string().describe('who holds that task (an agent id, another clone, or this answer)'),
            kind: z
              .enum(['active', 'proposed'])
              .describe('active: work in progress; proposed: a task offered above in this answer'),
            paths: z.array(z.string()).describe('that task’s globs or changed files that meet this one’s'),
            touches: z.array(z.string()).describe('this task’s globs that meet them'),
          }),
        ),
      }),
    )
    .describe('ready tasks not offered because their paths overlap work in progress (touches:, worktree changes)'),
  held_back_total: z.number().int().describe('every held back task (held_back holds at most --limit)'),
  explanation: z.string().nullable().describe('why nothing is ready; null when something is'),
  ...PageFields,
})

const Link = z.enum(['FS', 'SS', 'FF', 'SF'])

export const CriticalPathDoc = z.strictObject({
  schema: z.literal('critical-path/v1'),
  project: z.string().nullable(),
  scope: z.enum(['project', 'workspace']).describe('one project (--project) or every project'),
  duration: z.number().nullable().describe('null when a task in scope is unsized'),
  duration_lower_bound: z
    .number()
    .nullable()
    .describe('the latest known finish: the duration when every task is sized, else how long it takes at least'),
  unit: z.literal('te'),
  tasks: z.array(
    z.strictObject({
      id: z.string(),
      ref: z.string(),
      title: z.string(),
      project: z.string(),
      status: z.enum(['open', 'active', 'blocked']).describe('blocked tasks stay in the schedule, marked'),
      external: z
        .boolean()
        .describe("another project's task this project waits on (it constrains, it is not measured)"),
      te: z.number().nullable(),
      es: z.number().nullable(),
      ef: z.number().nullable(),
      ls: z.number().nullable(),
      lf: z.number().nullable(),
      slack: z.number().nullable().describe('null when it depends on an unsized task'),
      critical: z.boolean(),
    }),
  ),
  critical_path: z
    .array(z.string())
    .describe(
      'task ids of the critical chain in order, when the critical tasks form one path; else [] (see critical_graph)',
    ),
  critical_graph: z
    .array(
      z.strictObject({
        id: z.string(),
        ref: z.string(),
        after: z
          .array(z.strictObject({ id: z.string(), ref: z.string(), type: Link }))
          .describe('its critical predecessors (the links that set its dates)'),
      }),
    )
    .describe('every critical task with its critical predecessors, by early start: parallel branches stay parallel'),
  unsized: z.array(z.string()).describe('refs of tasks without an estimate'),
  links: z
    .array(z.strictObject({ from: z.string(), to: z.string(), type: Link }))
    .describe('every dependency link that constrains the schedule, by task id (the graph to draw)'),
  excluded: z
    .array(
      z.strictObject({
        id: z.string(),
        ref: z.string(),
        title: z.string(),
        reason: z.literal('wont'),
        dependents: z.array(z.string()).describe('refs of planned tasks that depend on it'),
      }),
    )
    .describe('tasks left out of the plan'),
  format: z.enum(['text', 'mermaid', 'dot']),
  diagram: z.string().nullable().describe('the mermaid or dot source with --format mermaid|dot'),
  ...PageFields,
  omitted: z
    .strictObject({
      critical_path: z.number().int(),
      critical_graph: z.number().int(),
      unsized: z.number().int(),
      links: z.number().int(),
      excluded: z.number().int(),
    })
    .describe(
      'entries left out of each list by --limit (tasks are paged: total, next_cursor); links kept are those of the tasks on the page',
    ),
})

export const documents = {
  'workspace-status/v1': StatusDoc,
  'workspace-overview/v1': OverviewDoc,
  'next/v1': NextDoc,
  'critical-path/v1': CriticalPathDoc,
}

export type StatusDocT = z.infer<typeof StatusDoc>
export type OverviewDocT = z.infer<typeof OverviewDoc>
export type NextDocT = z.infer<typeof NextDoc>
export type CriticalPathDocT = z.infer<typeof CriticalPathDoc>
