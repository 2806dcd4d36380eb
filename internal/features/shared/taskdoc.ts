// The task documents from store records — task/v1, a task-list/v1 item, task-change/v1 — and their human
// rendering. They are document builders, not policy (so not engines); they live beside the records they are
// built from, like projectdoc.ts, which keeps the task slice small. The wire shapes are the task slice's json.ts
// (the store does not import a slice): there each built type is checked against its zod schema at compile time.

import { cmd } from '../../base/commands.js'
import { formatDuration } from '../../base/duration.js'
import { classifiedError } from '../../base/errors.js'
import { count } from '../../base/text.js'
import type { Result } from '../../clikit/command.js'
import type { Out, Styler } from '../../clikit/io.js'
import { oneDecimal } from '../../clikit/text.js'
import { expiredAt, remoteClaimOf } from '../../domain/claims/arbiter.js'
import type { Change } from '../../domain/task/lifecycle.js'
import type { TaskRecord, TaskSummary } from '../../format/model.js'
import { type DepType, type Status, teOf } from '../../format/model.js'
import { qualifiedRef } from '../../format/refs.js'
import { findEvent, isQuestionId } from '../../store/events.js'
import { REFUSED_CONTENT, type Store } from '../../store/store.js'
import { folderStatus } from '../../store/tombstones.js'

async function resolveQuietly(store: Store, on: string, project: string): Promise<TaskSummary | null> {
  try {
    const f = await store.resolve(on, { prefer: project })
    return await store.summaryOf(f)
  } catch (e) {
    // Not one task (none, or ambiguous), or a task file dacli refused to read (doctor and listings name it): shown
    // unresolved, its status unknown (null), rather than the whole task refused. Anything else is a real failure.
    const c = classifiedError(e)
    if (c?.kind === 'not_found' || c?.kind === 'usage') return null
    if (c?.kind === 'failure' && REFUSED_CONTENT.has(String(c.details?.code))) return null
    throw e
  }
}

/** The task/v1 body (without `schema`), with dependencies and parent resolved. */
async function taskBody(store: Store, t: TaskRecord) {
  const now = store.now()
  const deps: { on: string; ref: string | null; title: string | null; type: DepType; status: Status | null }[] = []
  for (const d of t.depends_on) {
    const s = await resolveQuietly(store, d.on, t.project)
    deps.push({
      on: d.on,
      ref: s ? qualifiedRef(s) : null,
      title: s?.title ?? null,
      type: d.type,
      status: s?.status ?? null,
    })
  }
  const parent = t.parent === null ? null : await resolveQuietly(store, t.parent, t.project)
  const blocker = t.blocked_by === null ? null : await resolveQuietly(store, t.blocked_by, t.project)
  return {
    ...taskHead(t),
    claim: t.claim === null ? null : { ...t.claim, expired: expiredAt(t.claim, now) },
    remote_claim: remoteClaimOf(store, t.id, now),
    priority: t.priority,
    estimate: t.estimate === null ? null : { ...t.estimate, te: teOf(t.estimate) },
    depends_on: deps,
    parent: t.parent === null ? null : { id: parent?.id ?? t.parent, ref: parent ? qualifiedRef(parent) : null },
    acceptance: t.acceptance,
    acceptance_done: t.acceptance_done,
    acceptance_total: t.acceptance_total,
    unverified: t.unverified,
    sections: { so_that: t.so_that, context: t.context },
    log: t.log,
    verifications: t.verifications,
    blocked_by:
      t.blocked_by === null ? null : { id: blocker?.id ?? t.blocked_by, ref: blocker ? qualifiedRef(blocker) : null },
    version: t.version,
    aliases: t.aliases,
    tags: t.tags,
    github: t.github,
    created: t.created,
    created_by: t.created_by,
    path: t.path,
    worktree: t.worktree,
    branch: t.branch,
    touches: t.touches,
    labels: t.labels,
    milestone: t.milestone,
  }
}

/** A remote's claim for people: who, from where, until when, and how old the sighting is. */
export function remoteClaimLine(c: TaskBody['remote_claim']): string | null {
  if (c === null) return null
  const from = c.this_clone ? 'this clone' : `${c.host}:${c.workspace}`
  const lease = c.expires === null ? '' : ` until ${c.expires}${c.expired ? ' (expired)' : ''}`
  return `${c.by} on ${c.remote} (${from})${lease} — as seen ${ago(c.fetch_age_seconds)} (dacli claims list refreshes)`
}

/** "12s ago", "5m ago", "3h 2m ago". */
export const ago = (seconds: number) => `${formatDuration(seconds * 1000) || '0s'} ago`

/** The body of a task/v1 document (also the `task` of a task-change/v1 one). */
export type TaskBody = Awaited<ReturnType<typeof taskBody>>

export async function taskDoc(store: Store, t: TaskRecord) {
  return { schema: 'task/v1' as const, ...(await taskBody(store, t)) }
}

/** What every task document starts with: which task, where it stands, who owns it. */
function taskHead(t: TaskSummary) {
  return {
    id: t.id,
    seq: t.seq,
    ref: qualifiedRef(t),
    slug: t.slug,
    project: t.project,
    title: t.title,
    status: folderStatus(t.path) ?? t.status,
    owner: t.owner,
  }
}

export function listItem(t: TaskSummary) {
  // The head's object gets the rest added: `{ ...taskHead(t), … }` went through V8's generic copy for every item,
  // ~90 ms of a 10,000-task list (measured); Object.assign onto the fresh head keeps it a fast object.
  return Object.assign(taskHead(t), {
    priority: t.priority,
    acceptance_done: t.acceptance_done,
    acceptance_total: t.acceptance_total,
    estimate_te: t.estimate === null ? null : teOf(t.estimate),
    claim_expires: t.claim?.expires ?? null,
    version: t.version,
    path: t.path,
    labels: t.labels,
    milestone: t.milestone,
  })
}

/** What a person needs to see why a task is blocked: the blocking task as it stands, and the reason given. */
export interface BlockInfo {
  by: { ref: string; status: string | null; title: string | null } | null
  why: string | null
  at: string | null
  actor: string | null
}

/** The block of a blocked task (null otherwise): the blocker resolved, the reason from the last `blocked` entry. */
export async function blockInfo(store: Store, t: TaskRecord): Promise<BlockInfo | null> {
  if (t.status !== 'blocked') return null
  const entry = [...t.log].reverse().find((l) => l.verb === 'blocked')
  // The log entry reads `by <id>: <why>`, `by <id>` or `<why>`.
  let why = entry?.details ?? null
  if (why !== null && t.blocked_by !== null) why = why.replace(/^by [^:\s]+(: )?/, '')
  // A question holds it (ask, a merge decision): the question as it stands, and what to do about it.
  if (t.blocked_by !== null && isQuestionId(t.blocked_by)) {
    const q = await findEvent(store, t.blocked_by).catch(() => null)
    const state =
      q === null ? null : q.state === 'pending' ? 'open question' : q.state === 'applied' ? 'answered' : 'dismissed'
    return {
      // Its words are not repeated here (threads shows them, with their author, once their signature is checked).
      by: { ref: t.blocked_by, status: state, title: null },
      why: why === null || why === '' ? `waiting on an answer: ${cmd(`answer ${t.blocked_by} "<answer>"`)}` : why,
      at: entry?.at ?? null,
      actor: entry?.actor ?? null,
    }
  }
  const blocker = t.blocked_by === null ? null : await resolveQuietly(store, t.blocked_by, t.project)
  return {
    by:
      t.blocked_by === null
        ? null
        : {
            ref: blocker ? qualifiedRef(blocker) : t.blocked_by,
            status: blocker?.status ?? null,
            title: blocker?.title ?? null,
          },
    why: why === '' ? null : why,
    at: entry?.at ?? null,
    actor: entry?.actor ?? null,
  }
}

export function renderTask(out: Out, d: TaskBody, block: BlockInfo | null = null): void {
  const s = out.style
  out.line(`${s('bold', d.ref)}  ${out.status(d.status)}${d.priority ? `  ${d.priority}` : ''}`)
  out.line(s('bold', d.title))
  out.line('')
  const est = d.estimate
  out.fields([
    ['id', d.id],
    ['owner', d.owner ?? 'unowned'],
    [
      'claim',
      d.claim === null
        ? null
        : `${d.claim.by} since ${d.claim.at}${d.claim.expires ? ` until ${d.claim.expires}${d.claim.expired ? ' (expired)' : ''}` : ''}${d.claim.remote ? ` (on ${d.claim.remote})` : ''}`,
    ],
    // Only when the remote holds a claim: the other tasks read as before.
    ...(d.remote_claim === null ? [] : [['remote claim', remoteClaimLine(d.remote_claim)] as const]),
    [
      'estimate',
      est === null ? null : `${est.optimistic} / ${est.probable} / ${est.pessimistic}  (Te ${oneDecimal(est.te)})`,
    ],
    ['parent', d.parent === null ? null : (d.parent.ref ?? d.parent.id)],
    ['version', d.version],
    ['file', d.path],
    ...(d.worktree === null ? [] : [['worktree', `${d.worktree.path} (branch ${d.worktree.branch})`] as const]),
    ...(d.branch === null ? [] : [['branch', `${d.branch} (kept after its worktree was removed)`] as const]),
  ])
  if (block !== null) {
    out.line('')
    out.line(s('red', s('bold', 'Blocked')))
    if (block.by !== null) {
      const state = block.by.status === null ? 'does not resolve' : out.status(block.by.status)
      out.line(`  by   ${block.by.ref}  ${state}${block.by.title ? `  ${block.by.title}` : ''}`)
    }
    out.line(`  why  ${block.why ?? s('dim', 'no reason given (dacli task block <ref> --why "…")')}`)
    if (block.at !== null) out.line(s('dim', `  since ${block.at}${block.actor ? `, by ${block.actor}` : ''}`))
  }
  if (d.depends_on.length > 0) {
    out.line('')
    const waiting = d.depends_on.filter((x) => x.status !== 'done').length
    out.line(
      `${s('bold', 'Depends on')}${waiting > 0 && d.status !== 'done' ? s('dim', `  (${waiting} not done)`) : ''}`,
    )
    out.table(
      ['TYPE', 'TASK', 'STATUS', 'TITLE'],
      d.depends_on.map((dep) => [
        dep.type,
        dep.ref ?? dep.on,
        dep.status === null ? s('yellow', 'does not resolve') : out.status(dep.status),
        dep.title ?? '',
      ]),
      { indent: 2 },
    )
  }
  if (d.sections.so_that) {
    out.line('')
    out.line(s('bold', 'So that'))
    for (const l of d.sections.so_that.split('\n')) out.line(`  ${l}`)
  }
  if (d.sections.context) {
    out.line('')
    out.line(s('bold', 'Context'))
    for (const l of d.sections.context.split('\n')) out.line(`  ${l}`)
  }
  out.line('')
  out.line(s('bold', `Acceptance (${d.acceptance_done}/${d.acceptance_total})`))
  if (d.acceptance.length === 0) out.line(s('yellow', '  no acceptance criteria yet'))
  for (const a of d.acceptance) out.line(`  ${a.n}. [${a.checked ? 'x' : ' '}] ${a.text}`)
  if (d.verifications.length > 0) {
    out.line('')
    out.line(s('bold', 'Verification'))
    for (const v of d.verifications.slice(-5)) {
      const ok = v.exit_code === 0 ? s('green', 'passed') : s('red', `exit ${v.exit_code ?? 'timeout'}`)
      out.line(`  ${s('dim', v.at)} ${v.actor} ${ok} in ${v.duration_ms} ms  criteria ${v.checked.join(', ')}`)
      out.line(`    $ ${v.command}`)
    }
    if (d.verifications.length > 5) out.line(s('dim', `  … ${count(d.verifications.length - 5, 'earlier run')}`))
  }
  if (d.log.length > 0) {
    out.line('')
    out.line(s('bold', 'Log'))
    for (const l of d.log.slice(-10))
      out.line(`  ${s('dim', l.at)} ${l.actor} ${l.verb}${l.details ? ` ${l.details}` : ''}`)
    if (d.log.length > 10)
      out.line(
        s('dim', `  … ${count(d.log.length - 10, 'earlier entry', 'earlier entries')} (dacli task log ${d.ref})`),
      )
  }
}

const PAST: Record<string, string> = {
  claim: 'claimed',
  release: 'released',
  renew: 'renewed the claim on',
  check: 'checked criteria of',
  uncheck: 'unchecked criteria of',
  done: 'closed',
  block: 'blocked',
  unblock: 'unblocked',
  reopen: 'reopened',
  depend: 'changed the dependencies of',
  edit: 'edited',
  rm: 'removed',
}

/** A task-change/v1 document: what a lifecycle command did to a task, and the task after it. */
export interface TaskChangeDocument {
  schema: 'task-change/v1'
  action: string
  outcome: Change['outcome']
  task: TaskBody
  event_id: string | null
  details: Record<string, unknown>
}

/** The task-change/v1 result of a lifecycle command, with its human rendering. */
export async function changeResult(
  store: Store,
  c: Change,
): Promise<Result<TaskChangeDocument> & { text: (style: Styler) => string }> {
  const data: TaskChangeDocument = {
    schema: 'task-change/v1',
    action: c.action,
    outcome: c.outcome,
    task: await taskBody(store, c.task),
    event_id: c.event_id,
    details: c.details,
  }
  return {
    data,
    // Plain lines (no table): people's output loads no table renderer (the bench's `task claim`, `task done`).
    text(style) {
      const lines: string[] = []
      const ref = style('bold', data.task.ref)
      const s = data.task
      if (c.outcome === 'proposed') {
        lines.push(
          `proposed: ${c.action} ${ref} was recorded as event ${c.event_id} for its owner to apply (dacli sync)`,
        )
      } else if (c.outcome === 'unchanged') {
        lines.push(`unchanged: ${ref} (${s.status}${s.owner ? `, owner ${s.owner}` : ''}) — nothing to do`)
      } else {
        const verb = c.outcome === 'taken-over' ? 'took over' : (PAST[c.action] ?? c.action)
        if (s.status === 'removed')
          lines.push(`${verb} ${ref} — a tombstone now (${s.path}); its number is never reused`)
        else lines.push(`${verb} ${ref} — now ${s.status}${s.owner ? `, owner ${s.owner}` : ''}`)
      }
      if (s.claim?.expires && (c.action === 'claim' || c.action === 'renew') && c.outcome !== 'proposed') {
        lines.push(style('dim', `  claim expires ${s.claim.expires} (renew with dacli task renew ${s.ref})`))
      }
      if (c.action === 'check' || c.action === 'uncheck' || c.action === 'done') {
        lines.push(`  acceptance ${s.acceptance_done}/${s.acceptance_total}`)
        for (const a of s.acceptance) lines.push(`  ${a.n}. [${a.checked ? 'x' : ' '}] ${a.text}`)
      }
      const attested = c.action === 'check' ? (c.details.attested as number[] | undefined) : undefined
      if (attested !== undefined && attested.length > 0) {
        lines.push(
          style(
            'yellow',
            `  attested, not verified: ${attested.map((n) => `#${n}`).join(', ')} checked on your word (nothing ran); --verify CMD records evidence`,
          ),
        )
      }
      const l = c.details.landing as { branch: string; trunk: string; landed: boolean; missing: unknown[] } | undefined
      if (l !== undefined) {
        lines.push(
          l.landed
            ? `  landed: ${l.branch} is on ${l.trunk}`
            : style(
                'yellow',
                `  NOT landed: ${l.branch} has ${l.missing.length} commit(s) not on ${l.trunk} (--allow-unlanded, logged)`,
              ),
        )
      }
      if (c.action === 'done' && c.outcome !== 'proposed' && s.worktree !== null) {
        lines.push(
          style(
            'dim',
            `  its worktree stays at ${s.worktree.path}: ${cmd(`worktree remove ${s.ref}`)} removes it (${cmd('worktree prune')} removes every landed one)`,
          ),
        )
      }
      return lines.join('\n')
    },
  }
}
