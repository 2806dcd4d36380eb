// Delivery progress per project, from what the task files record (no git, no GitHub): how many tasks stand in
// each delivery state and the median time each stage took. A state or stage dacli never observes is null, never 0:
// `ready` (a pull request's review state lives on GitHub), and `released` in a project none of whose tasks a release
// train has recorded promoted (no train ran there: nothing says whether its work shipped).
//
//   open      not done, nobody owns it          pr_open   a `pr-opened` line (dacli pr open), not done
//   claimed   not done, owned, no pull request   landed    done, its latest landing not promoted
//                                                released  done, a `promoted <target> <commit>` line after it
//
// Every task stands in exactly one state. A done task is `landed` (until promoted) whether or not its log has a
// `landed <sha>` line: `task done` closes a task without a branch with no such line, `--allow-unlanded` logs
// `unlanded` instead, and a hand edit or another clone may set `status: done` — done is the end of the local
// pipeline either way. Only a `landed` line gives the pr_open → landed stage a sample, and landed → released one
// with a `promoted` line after the latest `landed` line (a promotion of work landed before a reopen counts for
// nothing: the task is landed, not released, until a train records its new work).

import type { TaskRecord } from '../../format/model.js'
import { DELIVERY_STATES, STAGES } from './kinds.js'
import { everPromoted, promotionOf } from './promotion.js'

export type DeliveryState = (typeof DELIVERY_STATES)[number]
export type Stage = (typeof STAGES)[number]

export interface StageTime {
  median_seconds: number | null
  samples: number
}

export interface ProjectProgress {
  project: string
  states: Record<DeliveryState, number | null>
  lead_time: Record<Stage, StageTime>
}

const CLAIMS = new Set(['claimed', 'claimed-local', 'taken-over'])

/** A log line's time in ms, or null (no line, or a time that does not parse). */
const atOf = (l: TaskRecord['log'][number] | undefined | null): number | null => {
  const ms = l == null ? Number.NaN : Date.parse(l.at)
  return Number.isFinite(ms) ? ms : null
}

const first = (t: TaskRecord, match: (verb: string) => boolean): number | null => atOf(t.log.find((e) => match(e.verb)))

function median(xs: number[]): number | null {
  if (xs.length === 0) return null
  const s = [...xs].sort((a, b) => a - b)
  const mid = Math.floor(s.length / 2)
  return s.length % 2 === 1 ? (s[mid] as number) : ((s[mid - 1] as number) + (s[mid] as number)) / 2
}

/** Per project: each of `projects` (one without tasks too: its counts are 0), and any other a record names. */
export function progressOf(records: readonly TaskRecord[], projects: readonly string[] = []): ProjectProgress[] {
  const by = new Map<string, TaskRecord[]>(projects.map((p) => [p, []]))
  for (const t of records) {
    const of = by.get(t.project)
    if (of === undefined) by.set(t.project, [t])
    else of.push(t) // pushed, not copied for each task (the copies were quadratic in a project's tasks)
  }
  return [...by.keys()].sort().map((project) => {
    const ts = by.get(project) ?? []
    const states: Record<DeliveryState, number | null> = {
      open: 0,
      claimed: 0,
      pr_open: 0,
      ready: null,
      landed: 0,
      released: null,
    }
    const spans: Record<Stage, number[]> = {
      open_to_claimed: [],
      claimed_to_pr_open: [],
      pr_open_to_landed: [],
      landed_to_released: [],
    }
    for (const t of ts) {
      const created = t.created === null ? null : Date.parse(t.created)
      const claimed = first(t, (v) => CLAIMS.has(v))
      const pr = first(t, (v) => v === 'pr-opened')
      const landed = t.status === 'done' ? first(t, (v) => v === 'landed') : null
      const promotion = t.status === 'done' ? promotionOf(t) : null
      const promoted = promotion === null ? null : atOf(promotion)
      if (promotion !== null) states.released = (states.released ?? 0) + 1
      else if (t.status === 'done') states.landed = (states.landed ?? 0) + 1
      else if (pr !== null) states.pr_open = (states.pr_open ?? 0) + 1
      else if (t.owner !== null) states.claimed = (states.claimed ?? 0) + 1
      else states.open = (states.open ?? 0) + 1
      if (created !== null && Number.isFinite(created) && claimed !== null)
        spans.open_to_claimed.push(claimed - created)
      if (claimed !== null && pr !== null) spans.claimed_to_pr_open.push(pr - claimed)
      if (pr !== null && landed !== null) spans.pr_open_to_landed.push(landed - pr)
      if (promoted !== null) {
        const last = atOf([...t.log].reverse().find((e) => e.verb === 'landed'))
        if (last !== null) spans.landed_to_released.push(promoted - last)
      }
    }
    // Released is observed once a release train recorded a promotion here (of any task, reopened since or not);
    // until then it stays null, never 0.
    if (states.released === null && ts.some(everPromoted)) states.released = 0
    const lead_time = Object.fromEntries(
      STAGES.map((s) => {
        const xs = spans[s].filter((x) => x >= 0).map((x) => x / 1000)
        return [s, { median_seconds: median(xs), samples: xs.length }]
      }),
    ) as Record<Stage, StageTime>
    return { project, states, lead_time }
  })
}

export { DELIVERY_STATES, STAGES }
