// Gathering the brief's sections for one task, in their fixed priority order.
// Text written by other agents or people is quoted with its author: data, not
// instructions.

import { byText } from '../../base/order.js'
import { vouchedEvents } from '../../domain/identity/vouched.js'
import type { NoteRecord } from '../../domain/notes/notes.js'
import { listNotes, listRisks, readGlossary } from '../../domain/notes/notes.js'
import type { BriefSection } from '../../domain/plan/brief.js'
import { linkAllowsStart, readiness, startNeeds, type TaskState } from '../../domain/plan/readiness.js'
import { byIdOf } from '../../domain/task/planview.js'
import { quote } from '../../format/markdown.js'
import type { TaskRecord } from '../../format/model.js'
import { teOf } from '../../format/model.js'
import { qualifiedRef, resolveAmong } from '../../format/refs.js'
import type { EventRecord } from '../../store/events.js'
import { fileRefOf, type Store } from '../../store/store.js'

const said = (text: string, who: string | null, when: string | null) =>
  `${quote(text)}\n> — ${who ?? 'unknown'}${when ? `, ${when}` : ''}`

const SEVERITY: Record<string, number> = { major: 0, moderate: 1, minor: 2 }

export async function gatherSections(store: Store, t: TaskRecord): Promise<BriefSection[]> {
  const project = await store.readProject(t.project)
  const listing = await store.projectListing(t.project)
  const siblings = listing.tasks
  const out: BriefSection[] = []

  // 1. The task itself — never trimmed.
  const task: string[] = [
    `**${qualifiedRef(t)}** — ${t.title}`,
    '',
    `status ${t.status} · priority ${t.priority ?? 'none'} · owner ${t.owner ?? 'nobody'}${t.estimate ? ` · estimate ${t.estimate.optimistic}/${t.estimate.probable}/${t.estimate.pessimistic} (Te ${teOf(t.estimate)})` : ''}`,
    '',
    'Acceptance criteria (all must be checked, ideally with --verify):',
    ...(t.acceptance.length === 0
      ? ['- (none — ask for criteria before starting)']
      : t.acceptance.map((a) => `${a.n}. [${a.checked ? 'x' : ' '}] ${a.text}`)),
  ]
  if (t.context) task.push('', 'Context, as written:', said(t.context, t.created_by, t.created))
  out.push({ title: 'Task', content: task.join('\n') })

  // 2. Questions asked about this task and their answers: a person's answer outranks everything below.
  // Quoted only when its author provably wrote it (the questions about this task, the pending findings below): a
  // forged event would put words in a person's mouth, and instructions in this brief.
  const about = (e: EventRecord) => e.event_kind === 'question' && e.about === t.id
  const events = (await vouchedEvents(store, (e) => about(e) || (e.event_kind === 'finding' && e.state === 'pending')))
    .events
  const asked = events.filter(about).reverse()
  if (asked.length > 0) {
    const notes = (await listNotes(store, t.project)).notes
    const qa = asked.map((q) => {
      const head = `${q.id} (${q.state === 'pending' ? 'OPEN — wait for the answer, do not guess' : q.state === 'applied' ? 'answered' : 'dismissed'}):`
      const lines = [head, said(q.body, q.created_by, q.created)]
      if (q.answered !== null) {
        const n = notes.find((x) => x.id === q.answered?.note)
        const text =
          n === undefined
            ? `(the answer note ${q.answered.note} is missing)`
            : n.kind === 'decision'
              ? [
                  `Chose: ${n.sections.chose ?? n.title}`,
                  `Rejected: ${n.sections.rejected ?? '(not recorded)'}`,
                  ...(n.sections.because ? [`Because: ${n.sections.because}`] : []),
                ].join('\n')
              : (n.body ?? '')
                  .split('\n')
                  .filter((l) => !l.startsWith('>') && !l.startsWith('In answer to '))
                  .join('\n')
                  .trim()
        lines.push('Answer:', said(text, q.answered.by, q.answered.at))
      }
      if (q.dismissed !== null)
        lines.push(`Dismissed by ${q.dismissed.by}, ${q.dismissed.at}: ${q.dismissed.reason ?? ''}`)
      return lines.join('\n')
    })
    out.push({ title: 'Questions and answers', content: qa.join('\n\n') })
  }

  // 3. Why: the project goal, the parent chain, the task's own "so that".
  const why: string[] = []
  if (project.sections.goal)
    why.push(`Project goal (${project.title}):`, said(project.sections.goal, project.created_by, project.created))
  if (project.sections.vision) why.push('Vision:', said(project.sections.vision, project.created_by, null))
  let parentId = t.parent
  const chain: string[] = []
  for (let depth = 0; parentId !== null && depth < 10; depth++) {
    const p = resolveAmong(listing.tasks, parentId, t.project) ?? (await store.readTask(parentId).catch(() => null))
    if (p === null) break
    chain.push(`${qualifiedRef(p)} — ${p.title}`)
    parentId = p.parent
  }
  if (chain.length > 0) why.push(`Part of: ${chain.join(' ← ')}`)
  if (t.so_that) why.push('So that:', said(t.so_that, t.created_by, null))
  if (why.length > 0) out.push({ title: 'Why', content: why.join('\n') })

  // 4. Out of scope.
  if (project.sections.out_of_scope)
    out.push({ title: 'Out of scope', content: said(project.sections.out_of_scope, project.created_by, null) })

  // 5. Constraints: the project's constraints and its decisions (chose / rejected / because).
  const notes = (await listNotes(store, t.project)).notes
  const decisions = notes.filter((n) => n.kind === 'decision')
  const cons: string[] = []
  if (project.sections.constraints) cons.push(said(project.sections.constraints, project.created_by, null))
  for (const d of decisions) {
    const parts = [
      `Chose: ${d.sections.chose ?? d.title}`,
      d.sections.rejected ? `Rejected: ${d.sections.rejected}` : 'Rejected: (not recorded)',
      ...(d.sections.because ? [`Because: ${d.sections.because}`] : []),
    ]
    cons.push(
      `Decision “${d.title}” — do not re-propose what was rejected:`,
      said(parts.join('\n'), d.created_by, d.created),
    )
  }
  if (cons.length > 0) out.push({ title: 'Constraints', content: cons.join('\n\n') })

  // 6. Open risks with their indicators.
  const risks = (await listRisks(store, t.project)).risks
  if (risks.length > 0) {
    out.push({
      title: 'Risks',
      content: risks
        .map((r) =>
          [
            `- rank ${r.rank} (${r.impact} impact, ${r.likelihood} likelihood): ${r.title}`,
            ...r.indicators.map((i) => `  - watch for: ${i}`),
            `  - action: ${r.action ?? 'none recorded'}`,
          ].join('\n'),
        )
        .join('\n'),
    })
  }

  // 7. Glossary.
  const terms = await readGlossary(store, t.project)
  if (terms.length > 0)
    out.push({ title: 'Glossary', content: terms.map((g) => `- **${g.term}** — ${g.definition}`).join('\n') })

  // 8. What sibling tasks found: finding notes and pending finding events, most severe and newest first.
  // Each sibling by id (a listing holds one task of an id; made once per listing: one lookup per finding).
  const byId = byIdOf(siblings)
  const ids = byId
  const pendingFindings = events.filter(
    (e: EventRecord) =>
      e.event_kind === 'finding' &&
      e.state === 'pending' &&
      ((e.about !== null && ids.has(e.about)) || e.data.project === t.project),
  )
  const found: { severity: string | null; when: string; who: string; text: string; about: string | null }[] = [
    ...notes
      .filter((n: NoteRecord) => n.kind === 'finding' && !(n.answers !== null && n.about === t.id)) // shown under Questions
      .map((n) => ({
        severity: n.severity,
        when: n.created ?? '',
        who: n.created_by ?? 'unknown',
        text: [n.title, n.body].filter(Boolean).join('\n'),
        about: n.about,
      })),
    ...pendingFindings.map((e) => ({
      severity: typeof e.data.severity === 'string' ? e.data.severity : null,
      when: e.created,
      who: `${e.created_by} (pending)`,
      text: [typeof e.data.title === 'string' ? e.data.title : '', e.body].filter(Boolean).join('\n'),
      about: e.about,
    })),
  ].sort((a, b) => (SEVERITY[a.severity ?? ''] ?? 3) - (SEVERITY[b.severity ?? ''] ?? 3) || byText(b.when, a.when))
  if (found.length > 0) {
    out.push({
      title: 'What siblings found',
      content: found
        .map((f) => {
          const on =
            f.about === null
              ? ''
              : (() => {
                  const s = byId.get(f.about)
                  return s ? ` (on ${qualifiedRef(s)})` : ''
                })()
          return `${f.severity ?? 'unrated'}${on}:\n${said(f.text, f.who, f.when)}`
        })
        .join('\n\n'),
    })
  }

  // 9. Recent activity in the project (newest first).
  const activity = [...t.log.map((l) => ({ ...l, ref: qualifiedRef(t) }))]
  for (const s of siblings.filter((x) => x.id !== t.id && x.status !== 'open').slice(-20)) {
    try {
      // The listing just made names the file: read it (its record through the cache) rather than resolve the id again.
      const full = await store.readTaskFile(fileRefOf(store.root, s), undefined, true)
      activity.push(...full.log.slice(-3).map((l) => ({ ...l, ref: qualifiedRef(full) })))
    } catch {
      // An unreadable sibling is reported by lists and doctor; the brief goes on without it.
    }
  }
  activity.sort((a, b) => byText(b.at, a.at))
  if (activity.length > 0) {
    out.push({
      title: 'Recent activity',
      content: activity
        .slice(0, 12)
        .map((l) => `- ${l.at} ${l.ref} ${l.actor} ${l.verb}${l.details ? ` ${l.details}` : ''}`)
        .join('\n'),
    })
  }

  // 10. Dependencies and their state, and whether they let the task start (domain/plan/readiness.ts).
  if (t.depends_on.length > 0) {
    const lines: string[] = []
    const state = new Map<string, TaskState>()
    const deps: { on: string; type: string }[] = []
    for (const d of t.depends_on) {
      const dep =
        resolveAmong(listing.tasks, d.on, t.project) ??
        (await store.readTask(d.on, { prefer: t.project }).catch(() => null))
      if (dep) state.set(dep.id, dep.status)
      deps.push({ on: dep?.id ?? d.on, type: d.type })
      const needs = startNeeds(d.type)
      const holds = needs !== null && !linkAllowsStart(d.type, dep?.status ?? null)
      const effect = needs === null ? 'constrains the finish only' : holds ? 'holds the start' : 'start: met'
      lines.push(
        dep
          ? `- ${d.type} ${qualifiedRef(dep)} — ${dep.status}: ${dep.title} (${effect})`
          : `- ${d.type} ${d.on} — does not resolve (${effect})`,
      )
    }
    const r = readiness(t, deps, (id) => state.get(id) ?? null)
    lines.unshift(
      r.ready
        ? 'Ready to start: yes — nothing holds the start (FS needs done, SS needs started; FF/SF only constrain the finish).'
        : r.reason === 'waiting'
          ? `Ready to start: no — ${r.holds.length} dependenc${r.holds.length === 1 ? 'y holds' : 'ies hold'} the start.`
          : `Ready to start: ${r.reason === 'wont' ? 'no — priority wont' : `not applicable — the task is ${t.status}`}.`,
      '',
    )
    out.push({ title: 'Dependencies', content: lines.join('\n') })
  }
  return out
}
