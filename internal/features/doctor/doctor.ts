import * as path from 'node:path'
import { cmd } from '../../base/commands.js'
import { formatDuration } from '../../base/duration.js'
import { byText } from '../../base/order.js'
import { defineCommand } from '../../clikit/command.js'
import { bool } from '../../clikit/flags.js'
import { claimViewAge, expiredAt } from '../../domain/claims/arbiter.js'
import { lineageOf } from '../../domain/identity/agents.js'
import { listAgentFiles, rosterOf } from '../../domain/identity/identity.js'
import { listNotes, listRisks } from '../../domain/notes/notes.js'
import { CycleError, topoOrder } from '../../domain/plan/cpm.js'
import { lintDecision, lintRisk } from '../../domain/plan/lint.js'
import { loadPlan, refIn } from '../../domain/task/planview.js'
import { worktreeProblem } from '../../domain/worktree/worktrees.js'
import type { Broken, Claim, TaskSummary } from '../../format/model.js'
import { supersededBy } from '../../format/rawtask.js'
import { qualifiedRef } from '../../format/refs.js'
import { listEvents } from '../../store/events.js'
import { readText } from '../../store/fsio.js'
import { refusedFileOf } from '../../store/resolve.js'
import type { Store } from '../../store/store.js'
import { usedSeqs } from '../../store/taskindex.js'
import { coordinationFindings, danglingBlocks } from './coordination.js'
import {
  agentFindings,
  brokenFinding,
  danglingParents,
  dedupe,
  eventFindings,
  linkFindings,
  parentCycles,
  rootKeyFindings,
} from './hostile.js'
import type { DoctorDocT } from './json.js'
import { leftoverFindings } from './leftovers.js'
import { queueFindings } from './queues.js'

type Finding = DoctorDocT['findings'][number]

/** An RFC 3339 UTC time as FORMAT.md writes one (fractions of a second allowed). */
const RFC3339 = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:\.\d+)?Z$/

/** Does the listed copy of a task carry forward every line of the other (supersededBy)? Unreadable: assume not. */
function carriedForward(store: Store, ignored: string, kept: string): boolean {
  try {
    return supersededBy(readText(path.join(store.root, ignored)), readText(path.join(store.root, kept)))
  } catch {
    return false
  }
}

async function diagnose(store: Store, now: Date): Promise<Finding[]> {
  const out: Finding[] = []
  const add = (f: Finding) => out.push(f)
  // Copies of one task are reported below with their own codes and severities.
  const unparseable = (b: Broken) => {
    if (b.code !== 'duplicate-task-file' && b.code !== 'interrupted-move') add(brokenFinding(b))
  }

  const projects = await store.listProjects()
  for (const b of projects.broken) unparseable(b)
  const plan = await loadPlan(store)
  for (const b of plan.broken) unparseable(b)
  const all = await store.listTasks()
  for (const d of all.duplicates) {
    if (!carriedForward(store, d.ignored, d.kept)) {
      add({
        code: 'duplicate-task-file',
        severity: 'error',
        subject: d.ignored,
        message: `task ${d.id} has two copies that differ: ${d.ignored} holds lines ${d.kept} (the copy listed) lacks — a git merge that moved the task on one branch and changed it on the other, or a hand edit`,
        hint: `carry what is missing into ${d.kept}, then delete ${d.ignored} (dacli never removes a copy that holds work of its own)`,
      })
      continue
    }
    add(
      d.interrupted
        ? {
            code: 'interrupted-move',
            severity: 'warning',
            subject: d.ignored,
            message: `an older copy of task ${d.id}, left by a move that was interrupted; ${d.kept} is the current one`,
            hint: 'harmless: readers use the newer copy and the next change to the task removes this one',
          }
        : {
            code: 'duplicate-task-file',
            severity: 'warning',
            subject: d.ignored,
            message: `task ${d.id} is also at ${d.kept} at the same version (the more terminal copy wins)`,
            hint: `remove ${d.ignored} once you have checked nothing in it is missing from ${d.kept}`,
          },
    )
  }
  // Two different tasks with one sequence number in a project (a git merge of two branches that each added one).
  // `record pull` renumbers only numbers taken on both sides of the record branch, never two files already in this
  // checkout, so the hint is the fix by hand: the later-created task moves to a free number, keeping the old as alias.
  const seen = new Map<string, TaskSummary>()
  const free = new Map<string, number>()
  for (const t of plan.tasks) {
    const key = `${t.project}/${t.seq}`
    const prev = seen.get(key)
    if (prev !== undefined && prev.id !== t.id) {
      const later = byText(`${prev.created ?? ''} ${prev.id}`, `${t.created ?? ''} ${t.id}`) > 0 ? prev : t
      const used = [...usedSeqs(store.paths(), t.project), ...plan.tasks.flatMap((x) => x.aliases)]
      const to = Math.max(free.get(t.project) ?? 0, ...used) + 1
      free.set(t.project, to)
      const moved = path.join(path.dirname(later.path), `${String(to).padStart(3, '0')}-${later.slug}.md`)
      add({
        code: 'sequence-collision',
        severity: 'error',
        subject: qualifiedRef(later),
        message: `${t.project} has two tasks numbered ${t.seq}: ${qualifiedRef(prev)} and ${qualifiedRef(t)}`,
        hint: `rename ${later.path} to ${moved} and add ${later.seq} to its aliases (aliases: [${later.seq}]), so the old number still resolves`,
      })
    }
    seen.set(key, prev ?? t)
  }
  const agents = await listAgentFiles(store.dir, store.root)
  out.push(...(await agentFindings(store)), ...rootKeyFindings(store))
  const retired = new Set(agents.filter((a) => a.retired).map((a) => a.id))
  const known = new Set(agents.map((a) => a.id))
  // Whether `task claim` may take a task from its owner (domain/claims/ownership.ts judges it against this roster).
  const roster = await rosterOf(store)
  const takeable = (owner: string, claim: Claim | null) =>
    claim === null || expiredAt(claim, now) || roster.retired.has(owner) || !roster.known.has(owner)
  // Why an owner can no longer act: retired, unknown, or under a retired identity (its token stops resolving too).
  const orphanedBecause = (owner: string): string | null => {
    if (retired.has(owner)) return 'which is retired'
    if (!known.has(owner)) return 'which is not a known identity'
    if (!roster.retired.has(owner)) return null
    // The one retired itself (its file, or this clone's memory), not an identity retired only by being under it.
    const lineage = lineageOf(agents, owner)
    const above = lineage.find((a) => retired.has(a)) ?? lineage.findLast((a) => roster.retired.has(a))
    return above === undefined ? 'which is retired' : `whose ancestor ${above} is retired`
  }
  for (const t of plan.tasks) {
    // `created` is an RFC 3339 time (FORMAT.md): a hand edit that wrote another date leaves the task readable, but its
    // age and every duration counted from it unknowable — said, not read as a date it is not.
    if (t.created !== null && !RFC3339.test(t.created)) {
      add({
        code: 'invalid-field',
        severity: 'warning',
        subject: t.path,
        message: `created is ${JSON.stringify(t.created)}; expected an RFC 3339 UTC time (2026-01-31T12:00:00Z)`,
        hint: 'fix created by hand: the task is listed, but its age and durations from it are unknown',
      })
    }
    const wtProblem = worktreeProblem(store, t)
    if (wtProblem !== null) {
      add({
        code: 'invalid-field',
        severity: 'error',
        subject: t.path,
        message: wtProblem,
        hint: 'worktree add, remove and prune refuse this task until the worktree: line names a folder inside .dacli/worktrees/ (or is removed)',
      })
    }
    for (const d of t.depends_on) {
      if (plan.target(t, d.on) === null) {
        // A task dacli refused to read is still a task: fix its file, never drop the link to it.
        const refused = refusedFileOf(store, d.on, plan.broken)
        add({
          code: 'dangling-dependency',
          severity: 'error',
          subject: qualifiedRef(t),
          message:
            refused === null
              ? `depends on ${d.on}, which does not resolve to one task`
              : `depends on ${d.on}, whose file ${refused.path} cannot be read (${refused.reason})`,
          hint:
            refused === null
              ? `dacli task depend ${qualifiedRef(t)} --remove ${d.on}`
              : `fix ${refused.path} by hand; the link holds`,
        })
      }
    }
    const orphaned = t.status === 'done' || t.owner === null ? null : orphanedBecause(t.owner)
    if (t.owner !== null && orphaned !== null) {
      add({
        code: 'orphaned-task',
        severity: 'warning',
        subject: qualifiedRef(t),
        message: `owned by ${t.owner}, ${orphaned}`,
        hint: takeable(t.owner, t.claim)
          ? `another identity can take it over with dacli task claim ${qualifiedRef(t)}`
          : retired.has(t.owner)
            ? // Only a signed retirement frees a live claim (FORMAT.md): task claim would be refused (5).
              `its retirement is not signed, so its live claim holds: ${cmd(`agent retire ${t.owner} --release`)} (by a-root or an ancestor) gives the task back`
            : `its agent file cannot be read, so its live claim holds until it expires: fix ${t.owner}'s file`,
      })
    }
    // A done task holds no claim (task done deletes it); one left by hand, or by a dacli that let a merge keep it.
    if (t.status === 'done' && t.claim !== null) {
      const ref =
        t.claim.remote === null ? '' : ` (its ref on ${t.claim.remote}: ${cmd('reconcile')} offers to delete it)`
      add({
        code: 'claim-on-closed-task',
        severity: 'warning',
        subject: qualifiedRef(t),
        message: `the done task still records a claim by ${t.claim.by} (since ${t.claim.at})`,
        hint: `remove the claim: line from ${t.path}, keeping the rest${ref}`,
      })
    }
    if (t.status === 'active' && t.claim !== null && expiredAt(t.claim, now)) {
      add({
        code: 'expired-claim',
        severity: 'warning',
        subject: qualifiedRef(t),
        message: `${t.claim.by}'s claim expired at ${t.claim.expires}`,
        hint: `the owner renews it (dacli task renew ${qualifiedRef(t)}) or someone else takes it over (dacli task claim)`,
      })
    }
  }
  try {
    topoOrder(
      plan.tasks.map((t) => ({
        id: t.id,
        te: 1,
        deps: t.depends_on.map((d) => ({ on: plan.target(t, d.on)?.id ?? d.on, type: d.type })),
      })),
    )
  } catch (e) {
    if (!(e instanceof CycleError)) throw e
    const names = e.cycle.map((id) => refIn(plan, id))
    add({
      code: 'dependency-cycle',
      severity: 'error',
      subject: refIn(plan, e.cycle[0]),
      message: `dependency cycle: ${names.join(' → ')}`,
      hint: 'remove one link with dacli task depend <ref> --remove <dep>',
    })
  }
  out.push(...parentCycles(plan), ...danglingParents(store, plan))
  const notes = await listNotes(store)
  for (const b of notes.broken) unparseable(b)
  for (const n of notes.notes.filter((x) => x.kind === 'decision')) {
    for (const f of lintDecision({ subject: n.path, rejected: n.sections.rejected })) {
      // An error in the store (FORMAT.md: note add refuses such a decision), where lint only warns.
      add({ ...f, severity: 'error', hint: `add a ## Rejected section to ${n.path}` })
    }
  }
  const risks = await listRisks(store)
  for (const b of risks.broken) unparseable(b)
  for (const r of risks.risks) {
    for (const f of lintRisk({ subject: r.path, rank: r.rank, action: r.action }))
      add({ ...f, hint: `add an ## Action section to ${r.path}` })
  }
  const events = await listEvents(store)
  for (const b of events.broken) unparseable(b)
  out.push(...(await eventFindings(store, events.events)))
  out.push(...danglingBlocks(plan, events))
  out.push(...linkFindings(store))
  out.push(...(await leftoverFindings(store)))
  out.push(...(await queueFindings(store)))
  for (const f of coordinationFindings(store, plan.tasks, now)) add(f)
  const rank = { error: 0, warning: 1, info: 2 }
  return dedupe(out).sort(
    (a, b) => rank[a.severity] - rank[b.severity] || byText(a.code, b.code) || byText(a.subject, b.subject),
  )
}

export const doctor = defineCommand({
  path: 'doctor',
  summary: 'Check the workspace: unreadable files, broken links, cycles, orphans, stale locks',
  description:
    "Reports findings with stable codes (unparseable-object, invalid-id, project-without-file, invalid-field, invalid-utf8, symlink-in-workspace, special-file, tampered-agent, tampered-identity, untrusted-key, unsigned-agent, duplicate-token-hash, forged-event, duplicate-event, duplicate-task-file, interrupted-move, sequence-collision, record-conflict, shadowed-worktree-copy, stale-remote-claim, unpublished-claim, dangling-dependency, dependency-cycle, dangling-parent, dangling-block, dangling-queue-entry, parent-cycle, orphaned-task, expired-claim, claim-on-closed-task, decision-without-rejected, unmanaged-risk, stale-lock, stale-temp, stale-git-temp, unreadable-path), each with a severity, the path or reference concerned and a hint. Exit 0 whatever it finds; with --strict, exit 1 when an error-severity finding exists (the report is printed either way). Claims on the remote (stale-remote-claim, unpublished-claim) are judged from the last fetch of the remote's claims, whose age the report states (`remote_claims`); --fetch fetches them first (claims.remote in config.yml, else origin; an unreachable remote is exit 1).",
  args: [],
  flags: {
    strict: bool('fail on an error-severity finding'),
    fetch: bool('fetch the remote’s claims first'),
  },
  json: 'doctor/v1',
  mutates: false,
  async run(ctx, input) {
    const store = await ctx.store()
    if (input.flags.fetch === true) {
      const { openClaims } = await import('../../domain/claims/remote.js')
      await openClaims(store, ctx.env, store.config.claims_remote ?? 'origin').fetchAll(
        ctx.now(),
        'dacli doctor (without --fetch: the claims as last fetched)',
      )
    }
    const findings = await diagnose(store, ctx.now())
    const ok = !findings.some((f) => f.severity === 'error')
    const remote_claims = claimViewAge(store, ctx.now())
    const data: DoctorDocT = { schema: 'doctor/v1', ok, findings, remote_claims }
    const age =
      remote_claims === null
        ? null
        : remote_claims.fetch_age_seconds === null
          ? `claims on ${remote_claims.remote}: never fetched whole (dacli doctor --fetch)`
          : `claims on ${remote_claims.remote} as fetched ${formatDuration(remote_claims.fetch_age_seconds * 1000) || '0s'} ago${input.flags.fetch === true ? '' : ' (dacli doctor --fetch refreshes)'}`
    return {
      data,
      verdict: input.flags.strict === true && !ok ? 'failure' : null,
      human(out) {
        if (findings.length === 0) {
          out.line('no problems found')
          if (age !== null) out.line(out.style('dim', age))
          return
        }
        const color = { error: 'red', warning: 'yellow', info: 'dim' } as const
        for (const f of findings) {
          out.line(`${out.style(color[f.severity], f.severity.padEnd(7))} ${f.code}  ${f.subject}`)
          out.line(`        ${f.message}`)
          out.line(out.style('dim', `        → ${f.hint}`))
        }
        const errors = findings.filter((f) => f.severity === 'error').length
        out.line(
          `\n${findings.length} finding${findings.length === 1 ? '' : 's'}, ${errors} error${errors === 1 ? '' : 's'}`,
        )
        if (age !== null) out.line(out.style('dim', age))
      },
    }
  },
})
