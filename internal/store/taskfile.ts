// Task files: `projects/<p>/tasks/<status>/NNN-<slug>.md`. The status is the
// folder; the sequence number and slug are the file name; everything else is
// frontmatter and body sections.

import { type Parsed, ParseError, parseObject } from './frontmatter.js'
import { checkboxes, findSection, sections, sectionText, titleOf } from './markdown.js'
import {
  type AcceptanceItem,
  type Claim,
  DEP_TYPES,
  type Dependency,
  type DepType,
  type Estimate,
  type GithubLink,
  type LogEntry,
  PRIORITIES,
  type Priority,
  type Status,
  TASK_FILE,
  type TaskRecord,
  type VerificationEntry,
} from './model.js'

const str = (v: unknown): string | null =>
  typeof v === 'string' && v !== '' ? v : v instanceof Date ? v.toISOString() : null

function estimateOf(v: unknown): Estimate | null {
  if (v === null || typeof v !== 'object' || Array.isArray(v)) return null
  const e = v as Record<string, unknown>
  const o = Number(e.optimistic)
  const m = Number(e.probable)
  const p = Number(e.pessimistic)
  if (![o, m, p].every((x) => Number.isFinite(x) && x >= 0) || !(o <= m && m <= p)) return null
  return { optimistic: o, probable: m, pessimistic: p }
}

/** `depends_on` as written by dacli (`{on, type}`) or by hand (`ref` or `ref:SS`). */
export function dependenciesOf(v: unknown): Dependency[] {
  if (!Array.isArray(v)) return []
  const out: Dependency[] = []
  for (const item of v) {
    if (typeof item === 'string' || typeof item === 'number') {
      out.push(parseDepSpec(String(item)))
    } else if (item !== null && typeof item === 'object') {
      const on = str((item as Record<string, unknown>).on) ?? String((item as Record<string, unknown>).on ?? '')
      const t = String((item as Record<string, unknown>).type ?? 'FS').toUpperCase()
      if (on !== '') out.push({ on, type: (DEP_TYPES as readonly string[]).includes(t) ? (t as DepType) : 'FS' })
    }
  }
  return out
}

/** `REF[:FS|SS|FF|SF]` */
export function parseDepSpec(spec: string): Dependency {
  const m = /^(.*):(FS|SS|FF|SF)$/i.exec(spec)
  return m ? { on: m[1] as string, type: (m[2] as string).toUpperCase() as DepType } : { on: spec, type: 'FS' }
}

function claimOf(v: unknown): Claim | null {
  if (v === null || typeof v !== 'object') return null
  const c = v as Record<string, unknown>
  const by = str(c.by)
  const at = str(c.at)
  if (by === null || at === null) return null
  return { by, at, expires: str(c.expires) }
}

function githubOf(v: unknown): GithubLink | null {
  if (v === null || typeof v !== 'object') return null
  const g = v as Record<string, unknown>
  const issue = Number(g.issue)
  return {
    issue: Number.isInteger(issue) && issue > 0 ? issue : null,
    repo: str(g.repo),
    synced_at: str(g.synced_at),
  }
}

const LOG_LINE = /^[-*]\s+(\S+)\s+(\S+)\s+(\S+)(?:\s+(.*))?$/

export function logOf(body: string): LogEntry[] {
  const text = sectionText(body, 'Log')
  if (text === null) return []
  const out: LogEntry[] = []
  for (const line of text.split('\n')) {
    const m = LOG_LINE.exec(line.trim())
    if (m) out.push({ at: m[1] as string, actor: m[2] as string, verb: m[3] as string, details: (m[4] ?? '').trim() })
  }
  return out
}

const KNOWN_SECTIONS = new Set(['so that', 'context', 'acceptance', 'log', 'verification'])

export function verificationsOf(body: string): VerificationEntry[] {
  const text = sectionText(body, 'Verification')
  if (text === null) return []
  const out: VerificationEntry[] = []
  for (const line of text.split('\n')) {
    const m = /^[-*]\s+(\S+)\s+(\S+)\s+(\{.*\})\s*$/.exec(line.trim())
    if (!m) continue
    try {
      const v = JSON.parse(m[3] as string) as Record<string, unknown>
      out.push({
        at: m[1] as string,
        actor: m[2] as string,
        command: String(v.command ?? ''),
        exit_code: typeof v.exit_code === 'number' ? v.exit_code : null,
        duration_ms: Number(v.duration_ms ?? 0),
        output_digest: String(v.output_digest ?? ''),
        checked: Array.isArray(v.checked) ? v.checked.map(Number) : [],
      })
    } catch {
      // A hand-edited line that is not JSON is kept in the file and skipped here.
    }
  }
  return out
}

/** One evidence line for `## Verification`. */
export function verificationLine(at: string, actor: string, v: Omit<VerificationEntry, 'at' | 'actor'>): string {
  const { command, exit_code, duration_ms, output_digest, checked } = v
  return `- ${at} ${actor} ${JSON.stringify({ command, exit_code, duration_ms, output_digest, checked })}`
}

export interface TaskLocation {
  project: string
  status: Status
  /** File name `NNN-slug.md`. */
  name: string
  /** Path relative to the workspace root's parent. */
  path: string
}

/** Parse a task file. Throws ParseError when it is not a task. */
export function parseTask(text: string, loc: TaskLocation): { record: TaskRecord; parsed: Parsed } {
  const parsed = parseObject(text)
  return { record: recordOf(parsed, loc), parsed }
}

export function recordOf(parsed: Parsed, loc: TaskLocation): TaskRecord {
  const d = parsed.data
  const body = parsed.split.body
  const id = str(d.id)
  if (id === null) throw new ParseError('missing "id" in frontmatter')
  if (d.kind !== 'task') throw new ParseError(`"kind" is ${JSON.stringify(d.kind ?? null)}, expected "task"`)
  const m = TASK_FILE.exec(loc.name)
  if (m === null) throw new ParseError(`file name ${loc.name} is not NNN-slug.md`)
  const boxes: AcceptanceItem[] = checkboxes(body).map(({ n, text, checked }) => ({ n, text, checked }))
  const priority = (PRIORITIES as readonly string[]).includes(String(d.priority)) ? (d.priority as Priority) : null
  const version = Number(d.version)
  const extra = sections(body)
    .filter((s) => s.level === 2 && !KNOWN_SECTIONS.has(s.title.toLowerCase()))
    .map((s) => ({ title: s.title, content: body.slice(s.contentStart, s.end).trim() }))
  return {
    id,
    seq: Number(m[1]),
    slug: m[2] as string,
    project: loc.project,
    status: loc.status,
    path: loc.path,
    title: titleOf(body) ?? (m[2] as string).replace(/-/g, ' '),
    owner: str(d.owner),
    claim: claimOf(d.claim),
    priority,
    estimate: estimateOf(d.estimate),
    depends_on: dependenciesOf(d.depends_on),
    parent: str(d.parent),
    version: Number.isInteger(version) && version >= 0 ? version : 0,
    aliases: Array.isArray(d.aliases) ? d.aliases.map(Number).filter((n) => Number.isInteger(n) && n > 0) : [],
    github: githubOf(d.github),
    created: str(d.created),
    created_by: str(d.created_by),
    tags: Array.isArray(d.tags) ? d.tags.map(String) : [],
    acceptance_done: boxes.filter((b) => b.checked).length,
    acceptance_total: boxes.length,
    unverified: d.unverified === true,
    blocked_by: str(d.blocked_by),
    acceptance: boxes,
    so_that: sectionText(body, 'So that'),
    context: sectionText(body, 'Context'),
    log: logOf(body),
    verifications: verificationsOf(body),
    extra_sections: extra,
  }
}

/** The body dacli writes for a new task. */
export function newTaskBody(t: {
  title: string
  so_that?: string | null
  context?: string | null
  accept: readonly string[]
  log: string
}): string {
  const parts = [`# ${t.title}\n`]
  if (t.so_that) parts.push(`## So that\n\n${t.so_that.trim()}\n`)
  if (t.context) parts.push(`## Context\n\n${t.context.trim()}\n`)
  parts.push(`## Acceptance\n\n${t.accept.map((a) => `- [ ] ${a}\n`).join('')}`)
  parts.push(`## Log\n\n${t.log}\n`)
  return `\n${parts.join('\n')}`
}

export function hasAcceptanceSection(body: string): boolean {
  return findSection(body, 'Acceptance') !== undefined
}
