// Acceptance: ticking criteria (optionally proven by a command) and the owner's
// one-step close (`accept`), which also applies pending close proposals.

import * as path from 'node:path'
import { headOf } from '../../adapters/git/discover.js'
import { cmd } from '../../base/commands.js'
import { classifiedError, DacliError, FailureError, RefusedError, UsageError } from '../../base/errors.js'
import { appendToSection, checkboxes, setChecked } from '../../format/markdown.js'
import type { Identity, TaskRecord } from '../../format/model.js'
import { stamp } from '../../format/model.js'
import { qualifiedRef } from '../../format/refs.js'
import { verificationLine } from '../../format/taskfile.js'
import { type EventRecord, listEvents, markApplied } from '../../store/events.js'
import type { Store, TaskEdit } from '../../store/store.js'
import type { Arbitration } from '../claims/arbiter.js'
import { dropOnClose } from '../claims/arbitrate.js'
import type { Landing, LandingRequest } from './landing.js'
import { type Change, closeLanding, closeTask, landingDetails, mayRewrite, notOwner, propose } from './lifecycle.js'
import { redactCommand, runVerify, type Verification } from './verify.js'

export interface Selection {
  ns?: readonly number[]
  all?: boolean
  match?: string
}

/** The acceptance items a selection names; usage errors for numbers out of range or no match. */
function select(t: TaskRecord, sel: Selection): number[] {
  const given = [sel.ns && sel.ns.length > 0, sel.all === true, sel.match !== undefined].filter(Boolean).length
  if (given !== 1) throw new UsageError('say which criteria: exactly one of --n N (repeatable), --all or --match TEXT')
  if (t.acceptance_total === 0) {
    throw new UsageError(`${qualifiedRef(t)} has no acceptance criteria to check`, {
      next: [cmd(`task edit ${qualifiedRef(t)} --accept "<criterion>"`)],
    })
  }
  if (sel.all) return t.acceptance.map((a) => a.n)
  if (sel.match !== undefined) {
    const needle = sel.match.toLowerCase()
    const hits = t.acceptance.filter((a) => a.text.toLowerCase().includes(needle)).map((a) => a.n)
    if (hits.length === 0) {
      throw new UsageError(`no acceptance criterion of ${qualifiedRef(t)} contains "${sel.match}"`, {
        details: { criteria: t.acceptance.map(({ n, text }) => ({ n, text })) },
      })
    }
    return hits
  }
  const bad = (sel.ns ?? []).filter((n) => n < 1 || n > t.acceptance_total)
  if (bad.length > 0) {
    throw new UsageError(
      `--n ${bad.join(', ')} is out of range: ${qualifiedRef(t)} has criteria 1..${t.acceptance_total}`,
      {
        details: { criteria: t.acceptance.map(({ n, text }) => ({ n, text })) },
      },
    )
  }
  return [...new Set(sel.ns)].sort((a, b) => a - b)
}

export interface VerifyRequest {
  command: string
  timeoutMs?: number
  env: Readonly<Record<string, string | undefined>>
  /** Told when the command's text carried a secret that was masked before it was stored or printed. */
  warn?: (message: string) => void
  /** Aborted, the command is killed and the close or check fails with nothing written. */
  signal?: AbortSignal
}

/** Run the verification command; a failure is exit 1 and nothing is changed. */
async function verifyOrFail(store: Store, req: VerifyRequest, t: TaskRecord | null): Promise<Verification> {
  let v: Verification
  // The code under test is in the caller's worktree (a linked one, too); the evidence goes to the shared task.
  const git = store.git
  const cwd = git === null ? store.root : path.join(git.workTree, path.relative(git.mainWorkTree, store.root))
  const shown = redactCommand(req.command, req.env)
  if (shown.redacted) {
    req.warn?.(
      `the --verify command carries a secret; it is stored and shown as \`${shown.text}\` (pass secrets through the environment, never on the command line)`,
    )
  }
  try {
    v = {
      ...(await runVerify(store.system, req.command, cwd, req.env, req.timeoutMs, req.signal)),
      ...(git === null ? {} : headOf(git)),
    }
  } catch (e) {
    throw new FailureError(`could not run the verification command: ${(e as Error).message}`, { cause: e })
  }
  if (v.exit_code !== 0) {
    const what = v.timed_out ? `timed out after ${v.duration_ms} ms` : `exited ${v.exit_code}`
    throw new FailureError(
      `verification failed: \`${shown.text}\` ${what}${t ? `; ${qualifiedRef(t)} is unchanged` : ''}`,
      {
        details: {
          verification: {
            command: v.command,
            exit_code: v.exit_code,
            duration_ms: v.duration_ms,
            output_digest: v.output_digest,
            timed_out: v.timed_out,
          },
          output_tail: v.output_tail.slice(-2000),
        },
        next: ['fix what the command reports, then run it again'],
      },
    )
  }
  return v
}

async function tick(e: TaskEdit, ns: readonly number[], who: Identity, v: Verification | null): Promise<number[]> {
  const boxes = checkboxes(e.body).filter((b) => ns.includes(b.n) && !b.checked)
  if (boxes.length === 0) return []
  e.body = setChecked(e.body, boxes, true)
  const newly = boxes.map((b) => b.n)
  e.log('checked', newly.join(', '))
  if (v !== null) {
    e.log('verified', `${JSON.stringify(v.command)} exit 0 in ${v.duration_ms}ms`)
    e.body = appendToSection(e.body, 'Verification', [verificationLine(stamp(e.now), who.id, { ...v, checked: newly })])
  } else {
    // Nothing proved them: the trace says so, so a tick is never mistaken for a verification.
    e.log('attested', `${newly.join(', ')} (no --verify: on ${who.id}'s word, nothing was run)`)
  }
  return newly
}

export async function checkTask(
  store: Store,
  ref: string,
  who: Identity,
  sel: Selection,
  verify?: VerifyRequest,
): Promise<Change> {
  const { target, task: t } = await store.load(ref)
  if (!(await mayRewrite(store, t, who))) throw notOwner(t, who, 'check criteria of')
  const ns = select(t, sel)
  if (ns.every((n) => t.acceptance[n - 1]?.checked)) {
    return { action: 'check', outcome: 'unchanged', task: t, event_id: null, details: { checked: [], already: ns } }
  }
  const v = verify === undefined ? null : await verifyOrFail(store, verify, t)
  const r = await store.editTask(target, who.id, async (e) => {
    if (!(await mayRewrite(store, e.before, who))) throw notOwner(e.before, who, 'check criteria of')
    const newly = await tick(e, ns, who, v)
    return newly.length === 0 ? false : newly
  })
  const newly = r.result === false ? [] : r.result
  return {
    action: 'check',
    outcome: newly.length === 0 ? 'unchanged' : 'changed',
    task: r.task,
    event_id: null,
    details: {
      checked: newly,
      already: ns.filter((n) => !newly.includes(n)),
      attested: v === null ? newly : [],
      verification:
        v === null
          ? null
          : { command: v.command, exit_code: v.exit_code, duration_ms: v.duration_ms, output_digest: v.output_digest },
    },
  }
}

export async function uncheckTask(store: Store, ref: string, who: Identity, ns: readonly number[]): Promise<Change> {
  const { target, task: t } = await store.load(ref)
  if (!(await mayRewrite(store, t, who))) throw notOwner(t, who, 'uncheck criteria of')
  const wanted = select(t, { ns })
  const r = await store.editTask(target, who.id, async (e) => {
    if (!(await mayRewrite(store, e.before, who))) throw notOwner(e.before, who, 'uncheck criteria of')
    const boxes = checkboxes(e.body).filter((b) => wanted.includes(b.n) && b.checked)
    if (boxes.length === 0) return false
    e.body = setChecked(e.body, boxes, false)
    e.log('unchecked', boxes.map((b) => b.n).join(', '))
    return boxes.map((b) => b.n)
  })
  return {
    action: 'uncheck',
    outcome: r.result === false ? 'unchanged' : 'changed',
    task: r.task,
    event_id: null,
    details: { unchecked: r.result === false ? [] : r.result },
  }
}

// ------------------------------------------------------------------ accept

export interface AcceptEntry {
  id: string
  ref: string
  outcome: 'accepted' | 'unchanged' | 'proposed' | 'skipped'
  newly_checked: number
  /** Criteria this call ticked without a --verify command: attested, not verified. */
  attested: number
  satisfied: number
  total: number
  unverified: boolean
  verification: { command: string; exit_code: number | null; duration_ms: number; output_digest: string } | null
  skipped_reason: string | null
  event_id: string | null
  applied_proposals: string[]
  /** The landing check of a task with a branch, or null. */
  landing: ReturnType<typeof landingDetails> | null
  task: TaskRecord
}

/** `accept`'s landing and token options (the same as `task done`'s). */
export interface CloseExtras extends LandingRequest {
  tokens?: number
}

/** A pending proposal to close a task: `propose-status` with status done. */
export const isCloseProposal = (e: EventRecord) =>
  e.state === 'pending' &&
  e.event_kind === 'propose-status' &&
  (e.data.status === 'done' || e.data.status === undefined)

const summarize = (t: TaskRecord) => ({
  satisfied: t.acceptance_done,
  total: t.acceptance_total,
})

async function closeOne(
  store: Store,
  t: TaskRecord,
  who: Identity,
  opts: {
    allowUnverified: boolean
    verification: Verification | null
    adopt: boolean
    landing: Landing | null
    tokens?: number
    arbitration?: Arbitration
  },
  proposals: readonly EventRecord[],
): Promise<AcceptEntry> {
  const { target } = await store.load(t.id)
  let newly: number[] = []
  const r = await store.editTask(target, who.id, async (e) => {
    if (opts.adopt && e.before.owner !== who.id) {
      e.set('owner', who.id)
      e.log('taken-over', `from ${e.before.owner ?? 'nobody'} (accept --force)`)
    }
    if (e.before.status === 'done') return false
    if (e.before.acceptance_total === 0 && !opts.allowUnverified) {
      throw new RefusedError(
        'acceptance',
        `${qualifiedRef(e.before)} has no acceptance criteria; accepting it would verify nothing`,
        {
          details: { unmet: [], total: 0 },
          next: [
            cmd(`task edit ${qualifiedRef(e.before)} --accept "<criterion>"`),
            cmd(`accept ${qualifiedRef(e.before)} --allow-unverified (deliberately)`),
          ],
        },
      )
    }
    newly = await tick(
      e,
      e.before.acceptance.map((a) => a.n),
      who,
      opts.verification,
    )
    // Every box was already ticked: the command still ran and passed, and the trace says so.
    const v = opts.verification
    if (newly.length === 0 && v !== null) e.log('verified', `${JSON.stringify(v.command)} exit 0 in ${v.duration_ms}ms`)
    const res = await closeTask(store, e, who, opts.allowUnverified, 'accepted', {
      ownerChecked: true,
      landing: opts.landing,
      ...(opts.tokens === undefined ? {} : { tokens: opts.tokens }),
    })
    if (res === false) return false
    return { ...res, ...(await dropOnClose(opts.arbitration, e, who, 'accept')), applied: proposals.map((p) => p.id) }
  })
  const applied: string[] = []
  for (const p of proposals) {
    await markApplied(store, p)
    applied.push(p.id)
  }
  return {
    id: r.task.id,
    ref: qualifiedRef(r.task),
    outcome: r.changed ? 'accepted' : 'unchanged',
    newly_checked: newly.length,
    attested: opts.verification === null ? newly.length : 0,
    ...summarize(r.task),
    unverified: r.task.unverified,
    verification:
      opts.verification === null || !r.changed
        ? null
        : {
            command: opts.verification.command,
            exit_code: opts.verification.exit_code,
            duration_ms: opts.verification.duration_ms,
            output_digest: opts.verification.output_digest,
          },
    skipped_reason: null,
    event_id: null,
    applied_proposals: applied,
    landing: r.changed && opts.landing !== null ? landingDetails(opts.landing) : null,
    task: r.task,
  }
}

export async function acceptTask(
  store: Store,
  ref: string,
  who: Identity,
  opts: { verify?: VerifyRequest; allowUnverified?: boolean; force?: boolean; arbitration?: Arbitration } & CloseExtras,
): Promise<AcceptEntry> {
  const t = await store.readTask(ref)
  const tokens = opts.tokens === undefined ? {} : { tokens: opts.tokens }
  const adopt = opts.force === true && !(await mayRewrite(store, t, who))
  if (adopt && who.id !== 'a-root') {
    throw new RefusedError(
      'force',
      '--force (taking over another identity’s task to close it) is for the root identity only',
      {
        next: [`ask ${t.owner} to accept it, or run without --force to record a proposal`],
      },
    )
  }
  if (!adopt && !(await mayRewrite(store, t, who))) {
    const c: Change = await propose(store, t, who, 'accept', 'propose-status', {
      status: 'done',
      via: 'accept',
      ...tokens,
    })
    return {
      id: t.id,
      ref: qualifiedRef(t),
      outcome: 'proposed',
      newly_checked: 0,
      attested: 0,
      ...summarize(t),
      unverified: t.unverified,
      verification: null,
      skipped_reason: null,
      event_id: c.event_id,
      applied_proposals: [],
      landing: null,
      task: t,
    }
  }
  if (t.acceptance_total === 0 && !opts.allowUnverified && t.status !== 'done') {
    throw new RefusedError(
      'acceptance',
      `${qualifiedRef(t)} has no acceptance criteria; accepting it would verify nothing`,
      {
        details: { unmet: [], total: 0 },
        next: [
          cmd(`task edit ${qualifiedRef(t)} --accept "<criterion>"`),
          cmd(`accept ${qualifiedRef(t)} --allow-unverified (deliberately)`),
        ],
      },
    )
  }
  // Landing first: an unlanded task is refused before a long --verify runs.
  const landing = t.status === 'done' ? null : await closeLanding(store, t, opts)
  const verification =
    opts.verify === undefined || t.status === 'done' ? null : await verifyOrFail(store, opts.verify, t)
  const proposals = (await listEvents(store)).events.filter((e) => isCloseProposal(e) && e.about === t.id)
  const arbitration = opts.arbitration === undefined ? {} : { arbitration: opts.arbitration }
  return closeOne(
    store,
    t,
    who,
    { allowUnverified: opts.allowUnverified === true, verification, adopt, landing, ...tokens, ...arbitration },
    proposals,
  )
}

/** Close every task with a pending close proposal that the caller may close; skips are reported, not fatal. */
export async function acceptAll(
  store: Store,
  who: Identity,
  opts: { verify?: VerifyRequest; allowUnverified?: boolean; arbitration?: Arbitration } & Omit<
    CloseExtras,
    'branch' | 'tokens'
  >,
): Promise<AcceptEntry[]> {
  const pending = (await listEvents(store)).events.filter(isCloseProposal)
  const byTask = new Map<string, EventRecord[]>()
  for (const e of pending) if (e.about !== null) byTask.set(e.about, [...(byTask.get(e.about) ?? []), e])
  const out: AcceptEntry[] = []
  const candidates: { t: TaskRecord; proposals: EventRecord[]; landing: Landing | null }[] = []
  const skip = (t: TaskRecord | null, id: string, reason: string) =>
    out.push({
      id,
      ref: t ? qualifiedRef(t) : id,
      outcome: 'skipped',
      newly_checked: 0,
      attested: 0,
      satisfied: t?.acceptance_done ?? 0,
      total: t?.acceptance_total ?? 0,
      unverified: t?.unverified ?? false,
      verification: null,
      skipped_reason: reason,
      event_id: null,
      applied_proposals: [],
      landing: null,
      task: t as TaskRecord,
    })
  for (const [id, proposals] of byTask) {
    let t: TaskRecord
    try {
      t = await store.readTask(id)
    } catch (e) {
      skip(null, id, `task not readable: ${(e as Error).message}`)
      continue
    }
    if (!(await mayRewrite(store, t, who)))
      skip(t, id, `not yours to close (owner: ${t.owner ?? 'nobody'}, your grant: ${who.grant})`)
    else if (t.acceptance_total === 0 && !opts.allowUnverified && t.status !== 'done')
      skip(t, id, 'no acceptance criteria (use --allow-unverified deliberately)')
    else {
      let landing: Landing | null = null
      try {
        landing = t.status === 'done' ? null : await closeLanding(store, t, opts)
      } catch (e) {
        skip(t, id, (e as Error).message) // not landed: reported, the others still close
        continue
      }
      candidates.push({ t, proposals, landing })
    }
  }
  const verification =
    opts.verify !== undefined && candidates.some((c) => c.t.status !== 'done')
      ? await verifyOrFail(store, opts.verify, null)
      : null
  for (const { t, proposals, landing } of candidates) {
    // A proposal may carry the tokens its author reported (`task done --tokens` by a non-owner).
    const reported = proposals.map((p) => p.data.tokens).find((n): n is number => typeof n === 'number')
    try {
      out.push(
        await closeOne(
          store,
          t,
          who,
          {
            allowUnverified: opts.allowUnverified === true,
            verification,
            adopt: false,
            landing,
            ...(reported === undefined ? {} : { tokens: reported }),
            ...(opts.arbitration === undefined ? {} : { arbitration: opts.arbitration }),
          },
          proposals,
        ),
      )
    } catch (e) {
      if (!aboutThisTask(e)) throw withClosed(e, out)
      skip(t, t.id, (e as Error).message) // nothing of it was written; the others still close
    }
  }
  return out
}

/**
 * A failure that stops `accept --all` after it closed some tasks says which (`details.accepted`): those stay closed,
 * and exit 1 alone would leave the caller guessing.
 */
function withClosed(e: unknown, out: readonly AcceptEntry[]): unknown {
  const closed = out.filter((x) => x.outcome === 'accepted').map((x) => x.ref)
  if (closed.length === 0) return e
  const err =
    e instanceof DacliError ? e : new FailureError((e as Error).message ?? String(e), { cause: e, details: {} })
  err.details.accepted = closed
  err.next.unshift(
    `${closed.length === 1 ? 'this task was closed before the failure and stays' : `these ${closed.length} tasks were closed before the failure and stay`} closed: ${closed.join(', ')}; fix the failure, then ${cmd('accept --all')} again`,
  )
  return err
}

/**
 * Whether an error closing one task of `accept --all` is that task's skip: a refusal (blocked, an open question,
 * unmet criteria, …), a conflict (its lock held past the wait, another clone's live claim on the remote) or the
 * task gone meanwhile are about that task alone. A failure (the disk, git, the claims remote unreachable) would
 * fail every task after it too, so it stays fatal.
 */
function aboutThisTask(e: unknown): boolean {
  const kind = classifiedError(e)?.kind
  return kind === 'refused' || kind === 'conflict' || kind === 'not_found'
}
