// Notes (decisions, findings, metrics, refs), risks and the glossary
// (FORMAT.md). A title collision gets a unique suffix: a note is never
// overwritten.

import * as fs from 'node:fs'
import * as path from 'node:path'
import { cmd } from '../../base/commands.js'
import { FailureError, NotFoundError, RefusedError, UsageError } from '../../base/errors.js'
import { newUlid } from '../../base/ids.js'
import { byText } from '../../base/order.js'
import type { Proc } from '../../base/system.js'
import { parseData } from '../../format/flat.js'
import { isId, projectFilter, slugify } from '../../format/ids.js'
import { checkedTitleOf, headingLine, listItems, sections, sectionText } from '../../format/markdown.js'
import { type Broken, brokenOf, InvalidValueError, stamp } from '../../format/model.js'
import type { Section } from '../../store/filecache.js'
import { assertNoLinks, atomicWrite, folderFiles, mkdirNoLinks, readText } from '../../store/fsio.js'
import { projectsIn } from '../../store/projects.js'
import { REFUSED_CONTENT, type Store } from '../../store/store.js'
import { checkNoteFields, checkOneOf, checkText, folderKindOf, LEVELS, NOTE_KINDS, type NoteKind } from './fields.js'

export { LEVELS, NOTE_KINDS, type NoteKind, SEVERITIES } from './fields.js'

export interface NoteRecord {
  id: string
  project: string
  kind: NoteKind
  slug: string
  title: string
  about: string | null
  severity: string | null
  body: string | null
  sections: {
    chose: string | null
    rejected: string | null
    because: string | null
    goal: string | null
    question: string | null
    metric: string | null
  }
  source_event: string | null
  /** The question (`q-<ULID>`) this note answers, or null. */
  answers: string | null
  created: string | null
  created_by: string | null
  path: string
}

export interface NewNote {
  project: string
  kind: NoteKind
  title: string
  by: string
  about?: string | null
  body?: string
  chose?: string
  rejected?: string
  because?: string
  severity?: string
  goal?: string
  question?: string
  metric?: string
  sourceEvent?: string
  /** The question it answers (`answer`). */
  answers?: string
}

/** Policy checks before writing (exit 3 for a decision without a rejected alternative, a metric without goal and question). */
export function checkNotePolicy(n: Pick<NewNote, 'kind' | 'rejected' | 'goal' | 'question'>): void {
  if (n.kind === 'decision' && (n.rejected === undefined || n.rejected.trim() === '')) {
    throw new RefusedError(
      'decision-without-rejected',
      'a decision must say what was rejected (--rejected): a choice without alternatives is not a decision',
      {
        next: [
          cmd(
            'note add decision "<title>" --project <p> --chose "<what>" --rejected "<alternative>" --because "<why>"',
          ),
        ],
      },
    )
  }
  if (n.kind === 'metric' && (!n.goal?.trim() || !n.question?.trim())) {
    throw new RefusedError('metric-without-goal', 'a metric needs its --goal and --question (goal, question, metric)', {
      next: [
        cmd('note add metric "<title>" --project <p> --goal "<goal>" --question "<question>" --metric "<metric>"'),
      ],
    })
  }
}

const section = (title: string, text: string | undefined) =>
  text === undefined || text.trim() === '' ? '' : `## ${title}\n\n${text.trim()}\n\n`

/** Create `path` exclusively under `dir`, adding -2, -3 … to the slug on collision. */
function createUnique(sys: Proc, dir: string, slug: string, render: (slug: string) => string): string {
  mkdirNoLinks(dir)
  for (let i = 1; i < 1000; i++) {
    const s = i === 1 ? slug : `${slug}-${i}`
    const file = path.join(dir, `${s}.md`)
    try {
      atomicWrite(sys, file, render(s), { exclusive: true })
      return file
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e
    }
  }
  throw new UsageError(`too many notes titled like "${slug}"`)
}

export async function addNote(store: Store, n: NewNote): Promise<NoteRecord> {
  checkNotePolicy(n)
  store.requireProject(n.project)
  const dir = path.join(store.projectDir(n.project), 'notes', `${n.kind}s`)
  const { renderNew } = await import('../../format/frontmatter.js')
  const id = `n-${newUlid(store.now().getTime())}`
  const front: Record<string, unknown> = {
    id,
    kind: 'note',
    note_kind: n.kind,
    created: stamp(store.now()),
    created_by: n.by,
  }
  if (n.about) front.about = n.about
  if (n.severity) front.severity = n.severity
  if (n.sourceEvent) front.source_event = n.sourceEvent
  if (n.answers) front.answers = n.answers
  let body = `\n${headingLine(1, n.title)}\n\n`
  // Free text goes under the title, before any section, so it is never read as part of the last section.
  if (n.body) body += `${n.body.trim()}\n\n`
  if (n.kind === 'decision')
    body += section('Chose', n.chose ?? n.title) + section('Rejected', n.rejected) + section('Because', n.because)
  else if (n.kind === 'metric')
    body += section('Goal', n.goal) + section('Question', n.question) + section('Metric', n.metric)
  const file = createUnique(store.system, dir, slugify(n.title), () => renderNew(front, body.replace(/\n+$/, '\n')))
  const note = await readNoteFile(store, file, n.project)
  store.journal({
    kind: 'note.added',
    ref: `${n.project}/${note.slug}`,
    id,
    project: n.project,
    actor: n.by,
    summary: `${n.kind}: ${n.title}`,
  })
  return note
}

async function readNoteFile(store: Store, file: string, project: string): Promise<NoteRecord> {
  assertNoLinks(file, store.dir)
  return noteOf(file, readText(file), project, store.rel(file))
}

/** The id of a note or risk file, which must be `<prefix>-<ULID>`. */
function objectId(data: Record<string, unknown>, kind: 'note' | 'risk'): string {
  if (!isId(kind, data.id)) {
    throw new InvalidValueError(
      'invalid-id',
      'id',
      `field "id" is ${JSON.stringify(data.id ?? null)}; expected ${kind === 'note' ? 'n' : 'r'}-<ULID>`,
    )
  }
  return data.id as string
}

/** A note from its file's text (`rel`: its path from the workspace root). */
export async function noteOf(file: string, text: string, project: string, rel: string): Promise<NoteRecord> {
  const { data, split } = await parseData(text)
  const str = (v: unknown) => (typeof v === 'string' && v !== '' ? v : null)
  if (str(data.id) === null || data.kind !== 'note') throw new Error('not a note (missing id or kind: note)')
  objectId(data, 'note')
  const kind = checkNoteFields(data, folderKindOf(file))
  const body = split.body
  const firstSection = sections(body).find((s) => s.level === 2)
  const h1 = sections(body).find((s) => s.level === 1)
  const free = body.slice(h1 ? h1.contentStart : 0, firstSection ? firstSection.start : body.length).trim()
  return {
    id: str(data.id) as string,
    project,
    kind,
    slug: path.basename(file, '.md'),
    title: checkedTitleOf(body) ?? path.basename(file, '.md'),
    about: str(data.about),
    severity: str(data.severity),
    body: free === '' ? null : free,
    sections: {
      chose: sectionText(body, 'Chose'),
      rejected: sectionText(body, 'Rejected'),
      because: sectionText(body, 'Because'),
      goal: sectionText(body, 'Goal'),
      question: sectionText(body, 'Question'),
      metric: sectionText(body, 'Metric'),
    },
    source_event: str(data.source_event),
    answers: str(data.answers),
    created: str(data.created),
    created_by: str(data.created_by),
    path: rel,
  }
}

/** Read every object file of a folder through the parse cache; unreadable files go to `broken`. */
async function readFolder<T>(
  store: Store,
  dir: string,
  cache: Section<T>,
  prefix: string,
  read: (file: string, text: string, rel: string) => Promise<T>,
  out: T[],
  broken: Broken[],
): Promise<void> {
  for (const x of folderFiles(store, dir)) {
    if ('skip' in x) {
      broken.push(x.skip)
      continue
    }
    const { name: n, file, rel, stamp } = x
    const hit = cache.get(prefix + n, stamp)
    if (hit !== undefined) {
      out.push(hit)
      continue
    }
    try {
      const text = readText(file, stamp.size)
      const value = await read(file, text, rel)
      cache.set(prefix + n, stamp, value)
      out.push(value)
    } catch (e) {
      broken.push(brokenOf(rel, e))
    }
  }
}

export async function listNotes(store: Store, project?: string): Promise<{ notes: NoteRecord[]; broken: Broken[] }> {
  const notes: NoteRecord[] = []
  // Every project, and the folders under projects/ that are none (announced as the task listings announce them).
  const { slugs: projects, broken } = projectsIn(store, project)
  const index = store.cache('index')
  if (project === undefined) index.keepSections('notes/', projects)
  for (const p of projects) {
    // A server's memory of the project's notes, while the journal and the watch of their folders say nothing changed.
    const kept = store.live?.keptNotes<NoteRecord, Broken>(p)
    if (kept !== undefined) {
      notes.push(...kept.items)
      continue
    }
    const mark = store.live?.notesMark(p)
    const mine: NoteRecord[] = []
    const bad: Broken[] = []
    const cache = index.section<NoteRecord>(`notes/${p}`, 'used')
    for (const kind of NOTE_KINDS) {
      const dir = path.join(store.projectDir(p), 'notes', `${kind}s`)
      await readFolder(store, dir, cache, `${kind}/`, (file, text, rel) => noteOf(file, text, p, rel), mine, bad)
    }
    if (mark !== undefined) store.live?.keepNotes(p, { items: [...mine], broken: [...bad] }, mark)
    notes.push(...mine)
    broken.push(...bad)
  }
  return { notes, broken }
}

/** A note by id (`n-<ULID>`, the bare ULID or a prefix), `<project>/<slug>`, or a bare slug. */
export async function readNote(store: Store, ref: string): Promise<NoteRecord> {
  const { project, form } = splitRef(ref)
  const { notes, broken } = await listNotes(store, project)
  return pickObject(notes, broken, ref, form, 'note', store.root)
}

/** `<project>/<form>` or a bare form, with the project checked as a filter. */
export function splitRef(ref: string): { project: string | undefined; form: string } {
  const slash = ref.indexOf('/')
  return {
    project: projectFilter(slash === -1 ? undefined : ref.slice(0, slash)),
    form: slash === -1 ? ref : ref.slice(slash + 1),
  }
}

/** The file among those that could not be read (and were read: never a link or a pipe) whose `id:` is `id`. */
function carryingId(root: string, broken: readonly Broken[], id: string): Broken | undefined {
  if (!/^[nr]-[0-9A-Z]{26}$/.test(id)) return undefined
  const line = new RegExp(`^id:[ \\t]*["']?${id}["']?[ \\t]*\\r?$`, 'mi')
  return broken.find((b) => {
    if (!REFUSED_CONTENT.has(b.code)) return false
    try {
      return line.test(fs.readFileSync(path.join(root, b.path), 'latin1').slice(0, 4096))
    } catch {
      return false
    }
  })
}

/**
 * One note or risk of a listing by `form`: its id, the bare ULID, its slug, or a ULID prefix of 6 or more. None: a
 * file of that name that could not be read is exit 1 naming it (unreadable is not gone), else exit 4; several:
 * exit 2 listing them.
 */
export function pickObject<T extends { id: string; slug: string; project: string }>(
  list: readonly T[],
  broken: readonly Broken[],
  ref: string,
  form: string,
  kind: 'note' | 'risk',
  /** The workspace root: with it, a file that could not be read is matched by the id it carries too. */
  root?: string,
): T {
  const up = form.toUpperCase().replace(kind === 'note' ? /^N-/ : /^R-/, '')
  let hits = list.filter((n) => n.id === form || n.id.slice(2) === up)
  if (hits.length === 0) hits = list.filter((n) => n.slug === form)
  if (hits.length === 0 && up.length >= 6) hits = list.filter((n) => n.id.slice(2).startsWith(up))
  if (hits.length === 1) return hits[0] as T
  if (hits.length === 0) {
    const unreadable =
      broken.find((b) => path.basename(b.path, '.md') === form) ??
      (root === undefined ? undefined : carryingId(root, broken, `${kind === 'note' ? 'n' : 'r'}-${up}`))
    if (unreadable !== undefined) {
      throw new FailureError(`unreadable ${kind} file ${unreadable.path}: ${unreadable.reason}`, {
        details: { path: unreadable.path, code: unreadable.code },
        next: [cmd('doctor')],
      })
    }
    throw new NotFoundError(`no ${kind} matches "${ref}"`, {
      next: [kind === 'note' ? cmd('note list') : cmd('risk list')],
    })
  }
  const candidates = hits.map((n) => `${n.project}/${n.slug}`).sort()
  throw new UsageError(`${kind} reference "${ref}" is ambiguous: ${candidates.join(', ')}`, {
    details: { candidates },
    suggestions: candidates.map((c) => cmd(kind === 'note' ? `note show ${c}` : `risk edit ${c}`)),
  })
}

// ------------------------------------------------------------------ risks

export interface RiskRecord {
  id: string
  project: string
  slug: string
  title: string
  impact: string
  likelihood: string
  rank: number
  indicators: string[]
  action: string | null
  created: string | null
  created_by: string | null
  path: string
}

/** Computed, never stored: high+high = 1, high+medium = 2, any low = 3, otherwise 2. */
function riskRank(impact: string, likelihood: string): number {
  if (impact === 'high' && likelihood === 'high') return 1
  if (impact === 'low' || likelihood === 'low') return 3
  return 2
}

export async function addRisk(
  store: Store,
  r: {
    project: string
    title: string
    impact: string
    likelihood: string
    indicators: string[]
    action?: string
    by: string
  },
): Promise<RiskRecord> {
  store.requireProject(r.project)
  const { renderNew } = await import('../../format/frontmatter.js')
  const front = {
    id: `r-${newUlid(store.now().getTime())}`,
    kind: 'risk',
    created: stamp(store.now()),
    created_by: r.by,
    impact: r.impact,
    likelihood: r.likelihood,
  }
  let body = `\n${headingLine(1, r.title)}\n\n`
  if (r.indicators.length > 0) body += `## Indicators\n\n${r.indicators.map((i) => `- ${i}`).join('\n')}\n\n`
  if (r.action) body += `## Action\n\n${r.action.trim()}\n`
  const file = createUnique(store.system, path.join(store.projectDir(r.project), 'risks'), slugify(r.title), () =>
    renderNew(front, body.replace(/\n+$/, '\n')),
  )
  const risk = await readRiskFile(store, file, r.project)
  store.journal({
    kind: 'risk.added',
    ref: `${r.project}/${risk.slug}`,
    id: risk.id,
    project: r.project,
    actor: r.by,
    summary: `${r.impact} impact, ${r.likelihood} likelihood: ${r.title}`,
  })
  return risk
}

async function readRiskFile(store: Store, file: string, project: string): Promise<RiskRecord> {
  assertNoLinks(file, store.dir)
  return riskOf(file, readText(file), project, store.rel(file))
}

/** A risk from its file's text (`rel`: its path from the workspace root). */
export async function riskOf(file: string, text: string, project: string, rel: string): Promise<RiskRecord> {
  const { data, split } = await parseData(text)
  if (typeof data.id !== 'string' || data.kind !== 'risk') throw new Error('not a risk (missing id or kind: risk)')
  objectId(data, 'risk')
  // Checked here, the one place a risk is read: a rank is never computed from a value out of its scale.
  checkOneOf(data, 'impact', LEVELS)
  checkOneOf(data, 'likelihood', LEVELS)
  checkText(data, 'created', 'an RFC 3339 time')
  checkText(data, 'created_by', 'an agent id')
  const impact = String(data.impact ?? 'medium')
  const likelihood = String(data.likelihood ?? 'medium')
  const indicators = listItems((sectionText(split.body, 'Indicators') ?? '').split('\n')).map((i) => i.text)
  return {
    id: data.id,
    project,
    slug: path.basename(file, '.md'),
    title: checkedTitleOf(split.body) ?? path.basename(file, '.md'),
    impact,
    likelihood,
    rank: riskRank(impact, likelihood),
    indicators,
    action: sectionText(split.body, 'Action'),
    created: typeof data.created === 'string' ? data.created : null,
    created_by: typeof data.created_by === 'string' ? data.created_by : null,
    path: rel,
  }
}

export async function listRisks(store: Store, project?: string): Promise<{ risks: RiskRecord[]; broken: Broken[] }> {
  const risks: RiskRecord[] = []
  const { slugs: projects, broken } = projectsIn(store, project)
  const index = store.cache('index')
  if (project === undefined) index.keepSections('risks/', projects)
  for (const p of projects) {
    const dir = path.join(store.projectDir(p), 'risks')
    const cache = index.section<RiskRecord>(`risks/${p}`, 'used')
    await readFolder(store, dir, cache, '', (file, text, rel) => riskOf(file, text, p, rel), risks, broken)
  }
  risks.sort((a, b) => a.rank - b.rank || byText(a.project, b.project) || byText(a.slug, b.slug))
  return { risks, broken }
}

// --------------------------------------------------------------- glossary

export interface GlossaryEntry {
  term: string
  definition: string
}

const TERM_LINE = /^[-*]\s+\*\*(.+?)\*\*\s+[—–-]\s+(.*)$/

function glossaryFile(store: Store, project: string): string {
  return path.join(store.projectDir(project), 'glossary.md')
}

function readGlossaryText(store: Store, project: string): string {
  const file = glossaryFile(store, project)
  assertNoLinks(file, store.dir)
  return readText(file)
}

export async function readGlossary(store: Store, project: string): Promise<GlossaryEntry[]> {
  store.requireProject(project)
  let text: string
  try {
    text = readGlossaryText(store, project)
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return []
    throw new FailureError(`cannot read ${store.rel(glossaryFile(store, project))}: ${(e as Error).message}`, {
      cause: e,
    })
  }
  const out: GlossaryEntry[] = []
  for (const line of text.split(/\r?\n/)) {
    const m = TERM_LINE.exec(line.trim())
    if (m) out.push({ term: (m[1] as string).trim(), definition: (m[2] as string).trim() })
  }
  return out
}

/** Add or replace one term (under the project's glossary lock). Returns false when nothing changed. */
export async function setGlossaryTerm(
  store: Store,
  project: string,
  term: string,
  definition: string,
  by: string,
): Promise<boolean> {
  store.requireProject(project)
  const file = glossaryFile(store, project)
  return store.withLock(`glossary-${project}`, async () => {
    const line = `- **${term}** — ${definition}`
    let text: string | null
    try {
      text = readGlossaryText(store, project)
    } catch (e) {
      // Only a missing glossary is created; one dacli cannot read is never overwritten.
      if ((e as NodeJS.ErrnoException).code !== 'ENOENT') {
        throw new FailureError(`cannot read ${store.rel(file)}: ${(e as Error).message}`, { cause: e })
      }
      text = null
    }
    let out: string
    if (text === null) {
      const { renderNew } = await import('../../format/frontmatter.js')
      out = renderNew(
        { id: `g-${project}`, kind: 'note', note_kind: 'ref', created: stamp(store.now()), created_by: by },
        `\n# Glossary\n\n${line}\n`,
      )
    } else {
      // A glossary whose frontmatter does not parse is a person's to fix, never overwritten (FORMAT.md).
      try {
        await parseData(text)
      } catch (e) {
        throw new FailureError(`unreadable glossary ${store.rel(file)}: ${(e as Error).message}`, {
          cause: e,
          details: { path: store.rel(file) },
          next: ['fix the file by hand (dacli never overwrites an unreadable file)', cmd('doctor')],
        })
      }
      // Its line endings kept: a CRLF glossary stays CRLF.
      const eol = text.includes('\r\n') ? '\r\n' : '\n'
      const lines = text.split(/\r?\n/)
      const i = lines.findIndex((l) => TERM_LINE.exec(l.trim())?.[1]?.trim().toLowerCase() === term.toLowerCase())
      if (i !== -1) {
        if (lines[i] === line) return false
        lines[i] = line
      } else {
        while (lines.length > 0 && lines[lines.length - 1] === '') lines.pop()
        lines.push(line, '')
      }
      out = lines.join(eol)
    }
    atomicWrite(store.system, file, out)
    store.journal({
      kind: 'project.changed',
      ref: project,
      id: `p-${project}`,
      project,
      actor: by,
      summary: `glossary: ${term}`,
    })
    return true
  })
}
