// Readiness: may a task start now? The one definition behind `next`, `overview`,
// `context` and `explain`. Pure: values in, values out.
//
// A task is ready when it is open, not `wont`, and no dependency holds its start:
//   FS  the predecessor must be done;
//   SS  the predecessor must have started (active or done);
//   FF, SF constrain when the task may finish, never when it may start.
// A dependency that does not resolve holds an FS or SS start (doctor reports it
// as dangling); a link type dacli does not know reads as FS, the format's default.

export type TaskState = 'open' | 'active' | 'blocked' | 'done'
export type LinkKind = 'FS' | 'SS' | 'FF' | 'SF'

/** The predecessor state a link needs before its successor may start, or null when it never holds a start. */
export function startNeeds(type: string): 'done' | 'started' | null {
  if (type === 'SS') return 'started'
  if (type === 'FF' || type === 'SF') return null
  return 'done'
}

/** Does a link of this type, from a predecessor in this state (null: unresolved), let its successor start? */
export function linkAllowsStart(type: string, predecessor: TaskState | null): boolean {
  const needs = startNeeds(type)
  if (needs === null) return true
  if (needs === 'done') return predecessor === 'done'
  return predecessor === 'active' || predecessor === 'done'
}

/** Does any of these links hold its successor's start (what `readiness` reports as holds, without making them)? */
export function startHeld(
  deps: readonly { on: string; type: string }[],
  statusOf: (id: string) => TaskState | null,
): boolean {
  for (let i = 0; i < deps.length; i++) {
    const d = deps[i] as { on: string; type: string }
    if (!linkAllowsStart(d.type, statusOf(d.on))) return true
  }
  return false
}

/** A dependency holding a task's start. */
export interface Hold {
  on: string
  type: LinkKind
  /** The predecessor's state, or null when the reference does not resolve. */
  status: TaskState | null
  needs: 'done' | 'started'
}

export interface Readiness {
  ready: boolean
  /** `ready`, or why not: the task's own state, its `wont` priority, or dependencies holding its start. */
  reason: 'ready' | 'active' | 'blocked' | 'done' | 'wont' | 'waiting'
  /** Every dependency holding the start (reported whatever the task's own state). */
  holds: Hold[]
}

const linkOf = (type: string): LinkKind => (type === 'SS' || type === 'FF' || type === 'SF' ? type : 'FS')

export function readiness(
  task: { status: TaskState; priority: string | null },
  deps: readonly { on: string; type: string }[],
  statusOf: (id: string) => TaskState | null,
): Readiness {
  const holds: Hold[] = []
  for (const d of deps) {
    const needs = startNeeds(d.type)
    if (needs === null) continue
    const status = statusOf(d.on)
    if (!linkAllowsStart(d.type, status)) holds.push({ on: d.on, type: linkOf(d.type), status, needs })
  }
  const reason: Readiness['reason'] =
    task.status !== 'open' ? task.status : task.priority === 'wont' ? 'wont' : holds.length > 0 ? 'waiting' : 'ready'
  return { ready: reason === 'ready', reason, holds }
}

/** One line for a hold: `FS on <name>: must be done (it is open)`. */
export function describeHold(h: Omit<Hold, 'on'>, name: string): string {
  const state = h.status === null ? 'it does not resolve' : `it is ${h.status}`
  return `${h.type} on ${name}: must ${h.needs === 'done' ? 'be done' : 'have started'} (${state})`
}
