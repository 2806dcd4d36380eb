// Task files: `projects/<p>/tasks/<status>/NNN-<slug>.md`. The status is the folder; the sequence
// number and slug are the file name; everything else is frontmatter and body sections. This module
// needs no YAML parser (parsing.ts turns text into a Parsed document), so light commands can use it.

import { isBranchName } from '../base/branchname.js'
import { UsageError } from '../base/errors.js'
import { epochOfStamp } from '../base/time.js'
import { parseData, readObject, type Split } from './flat.js'
import { checkLabel, checkMilestone, isId, touchProblem } from './ids.js'
import { checkboxes, checkedTitleOf, headingLine, sections, sectionText } from './markdown.js'
import {
  type AcceptanceItem,
  type Claim,
  DEP_TYPES,
  type Dependency,
  type DepType,
  type Estimate,
  type GithubLink,
  InvalidValueError,
  type LogEntry,
  ParseError,
  PRIORITIES,
  type Priority,
  type Status,
  TASK_FILE,
  type TaskRecord,
  type TaskSummary,
  type TaskWorktree,
  type VerificationEntry,
} from './model.js'

const str = (v: unknown): string | null =>
  typeof v === 'string' && v !== '' ? v : v instanceof Date ? v.toISOString() : null

/**
 * The largest value an estimate's number may have (in whatever unit the project counts): beyond it a number
 * typed or written by hand is a slip, and far beyond it (1e21 and up) it would not even be written back as typed.
 */
export const MAX_ESTIMATE = 1e9

const estimateValue = (x: unknown): x is number =>
  typeof x === 'number' && Number.isFinite(x) && x >= 0 && x <= MAX_ESTIMATE

function estimateOf(v: unknown): Estimate | null {
  if (v === null || typeof v !== 'object' || Array.isArray(v)) return null
  const e = v as Record<string, unknown>
  const o = Number(e.optimistic)
  const m = Number(e.probable)
  const p = Number(e.pessimistic)
  if (![o, m, p].every(estimateValue) || !(o <= m && m <= p)) return null
  return { optimistic: o, probable: m, pessimistic: p }
}

/** `depends_on` as written by dacli (`{on, type}`) or by hand (`ref` or `ref:SS`). */
function dependenciesOf(v: unknown): Dependency[] {
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

/** Do two items of `depends_on` name the same dependency, however each is written (`ref`, `ref:SS`, `{on, type}`)? */
export function sameDependency(a: unknown, b: unknown): boolean {
  const x = dependenciesOf([a])
  const y = dependenciesOf([b])
  return x.length === 1 && y.length === 1 && x[0]?.on === y[0]?.on && x[0]?.type === y[0]?.type
}

/**
 * `REF[:FS|SS|FF|SF]` as a caller typed it (`--depends-on`, `task depend --add/--remove`). References never hold
 * a colon, so anything after one is a link type: an unknown one is a usage error naming the allowed types.
 */
export function parseDepFlag(spec: string, flag: string): Dependency {
  const colon = spec.lastIndexOf(':')
  const on = colon === -1 ? spec : spec.slice(0, colon)
  const type = colon === -1 ? 'FS' : spec.slice(colon + 1).toUpperCase()
  if (on.trim() === '') {
    throw new UsageError(`${flag} needs a task reference, got "${spec}"`, {
      details: { flag, value: spec },
      next: [`${flag} REF[:FS|SS|FF|SF]`],
    })
  }
  if (!(DEP_TYPES as readonly string[]).includes(type)) {
    throw new UsageError(
      `${flag} "${spec}": unknown link type "${spec.slice(colon + 1)}"; use one of ${DEP_TYPES.join(', ')} (FS when omitted)`,
      {
        details: { flag, value: spec, allowed: [...DEP_TYPES] },
        next: [`${flag} ${on}:FS`, `${flag} ${on}:SS`],
      },
    )
  }
  return { on, type: type as DepType }
}

/** `--estimate o,m,p` as a caller typed it, with 0 ≤ o ≤ m ≤ p (a three-point PERT estimate). */
export function parseEstimate(text: string): Estimate {
  const parts = text.split(',').map((p) => p.trim())
  const nums = parts.map(Number)
  // Decimal numbers as people write them (2, 0.5): not 0x10, 1e3 or 0b1, which Number also reads — as int flags refuse.
  if (parts.length !== 3 || !parts.every((p) => /^\d+(?:\.\d+)?$/.test(p)) || !nums.every((n) => Number.isFinite(n))) {
    throw new UsageError(`--estimate must be three numbers o,m,p (optimistic, probable, pessimistic), got "${text}"`)
  }
  const [o, m, p] = nums as [number, number, number]
  if (!(o >= 0 && o <= m && m <= p)) {
    throw new UsageError(`--estimate must satisfy 0 ≤ optimistic ≤ probable ≤ pessimistic, got ${o},${m},${p}`)
  }
  if (p > MAX_ESTIMATE) throw new UsageError(`--estimate values must be at most ${MAX_ESTIMATE}, got "${text}"`)
  return { optimistic: o, probable: m, pessimistic: p }
}

/** `REF[:FS|SS|FF|SF]` as written in a file: lenient (an unknown suffix stays part of the reference). */
function parseDepSpec(spec: string): Dependency {
  const m = /^(.*):(FS|SS|FF|SF)$/i.exec(spec)
  return m ? { on: m[1] as string, type: (m[2] as string).toUpperCase() as DepType } : { on: spec, type: 'FS' }
}

function claimOf(v: unknown): Claim | null {
  if (v === null || typeof v !== 'object') return null
  const c = v as Record<string, unknown>
  const by = str(c.by)
  const at = str(c.at)
  if (by === null || at === null) return null
  return { by, at, expires: str(c.expires), remote: str(c.remote) }
}

function worktreeOf(v: unknown): TaskWorktree | null {
  if (v === null || typeof v !== 'object') return null
  const w = v as Record<string, unknown>
  const p = str(w.path)
  const branch = str(w.branch)
  return p === null || branch === null ? null : { path: p, branch }
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

function logOf(body: string): LogEntry[] {
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

function verificationsOf(body: string): VerificationEntry[] {
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
        branch: typeof v.branch === 'string' ? v.branch : null,
        commit: typeof v.commit === 'string' && /^[0-9a-f]{40}$/.test(v.commit) ? v.commit : null,
      })
    } catch {
      // A hand-edited line that is not JSON is kept in the file and skipped here.
    }
  }
  return out
}

/** One evidence line for `## Verification`. */
export function verificationLine(at: string, actor: string, v: Omit<VerificationEntry, 'at' | 'actor'>): string {
  const { command, exit_code, duration_ms, output_digest, checked, branch, commit } = v
  const where = { ...(branch === null ? {} : { branch }), ...(commit === null ? {} : { commit }) }
  return `- ${at} ${actor} ${JSON.stringify({ command, exit_code, duration_ms, output_digest, checked, ...where })}`
}

export interface TaskLocation {
  project: string
  status: Status
  /** File name `NNN-slug.md`. */
  name: string
  /** Path relative to the workspace root's parent. */
  path: string
}

/** A task record from a file's text: the subset reader first, the YAML library only when the file needs it. */
export async function readTaskRecord(text: string, loc: TaskLocation): Promise<TaskRecord> {
  return recordOf(await parseData(text), { project: loc.project, status: loc.status, name: loc.name, path: loc.path })
}

/** A task summary from a file's text (readTaskRecord without the body's log, sections and evidence). */
export async function readTaskSummary(text: string, loc: TaskLocation): Promise<TaskSummary> {
  return summaryFrom(await parseData(text), {
    project: loc.project,
    status: loc.status,
    name: loc.name,
    path: loc.path,
  })
}

/**
 * readTaskSummary without waiting, when the subset reader can read the file; null when it needs the YAML library
 * (then call readTaskSummary). A listing makes thousands: each await would cost two promises and a turn.
 */
export function summaryNow(text: string, loc: TaskLocation): TaskSummary | null {
  const parsed = readObject(text)
  return parsed === null ? null : summaryFrom(parsed, loc)
}

type Fields = { summary: TaskSummary; boxes: AcceptanceItem[] }

/** A task summary and its acceptance items from a file's text (what lint reads: no record of the rest of the body). */
export async function readTaskFields(text: string, loc: TaskLocation): Promise<Fields> {
  return fieldsOf(await parseData(text), { project: loc.project, status: loc.status, name: loc.name, path: loc.path })
}

/** readTaskFields without waiting, or null when the file needs the YAML library (see summaryNow). */
export function fieldsNow(text: string, loc: TaskLocation): Fields | null {
  const parsed = readObject(text)
  return parsed === null ? null : fieldsOf(parsed, loc)
}

/** The summary fields of a task file (what listings and the index hold), validated exactly as recordOf validates. */
function summaryFrom(
  parsed: { data: Record<string, unknown>; split: Pick<Split, 'body'> },
  loc: TaskLocation,
): TaskSummary {
  return fieldsOf(parsed, loc).summary
}

function fieldsOf(
  parsed: { data: Record<string, unknown>; split: Pick<Split, 'body'> },
  loc: TaskLocation,
): { summary: TaskSummary; boxes: AcceptanceItem[] } {
  const d = parsed.data
  const body = parsed.split.body
  const id = str(d.id)
  if (id === null) throw new ParseError('missing "id" in frontmatter')
  if (d.kind !== 'task') throw new ParseError(`"kind" is ${JSON.stringify(d.kind ?? null)}, expected "task"`)
  checkTaskFields(d)
  const m = TASK_FILE.exec(loc.name)
  if (m === null) throw new ParseError(`file name ${loc.name} is not NNN-slug.md`)
  const boxes: AcceptanceItem[] = checkboxes(body).map(({ n, text, checked }) => ({ n, text, checked }))
  const priority = isPriority(d.priority) ? d.priority : null
  const heading = checkedTitleOf(body)
  const version = Number(d.version)
  let done = 0
  for (const b of boxes) if (b.checked) done++
  const summary: TaskSummary = {
    id,
    seq: Number(m[1]),
    slug: m[2] as string,
    project: loc.project,
    status: loc.status,
    path: loc.path,
    title: heading ?? (m[2] as string).replace(/-/g, ' '),
    owner: str(d.owner),
    claim: claimOf(d.claim),
    priority,
    estimate: estimateOf(d.estimate),
    depends_on: dependenciesOf(d.depends_on),
    parent: typeof d.parent === 'number' ? String(d.parent) : str(d.parent),
    version: Number.isInteger(version) && version >= 0 ? version : 0,
    aliases: Array.isArray(d.aliases) ? d.aliases.map(Number).filter((n) => Number.isInteger(n) && n > 0) : [],
    github: githubOf(d.github),
    created: str(d.created),
    created_by: str(d.created_by),
    tags: Array.isArray(d.tags) ? d.tags.map(String) : [],
    acceptance_done: done,
    acceptance_total: boxes.length,
    unverified: d.unverified === true,
    blocked_by: typeof d.blocked_by === 'number' ? String(d.blocked_by) : str(d.blocked_by),
    worktree: worktreeOf(d.worktree),
    touches: Array.isArray(d.touches) ? d.touches.map(String) : [],
    labels: Array.isArray(d.labels) ? d.labels.map(String) : [],
    milestone: typeof d.milestone === 'number' ? String(d.milestone) : str(d.milestone),
  }
  return { summary, boxes }
}

export function recordOf(
  parsed: { data: Record<string, unknown>; split: Pick<Split, 'body'> },
  loc: TaskLocation,
): TaskRecord {
  const { summary, boxes } = fieldsOf(parsed, loc)
  const body = parsed.split.body
  const extra = sections(body)
    .filter((s) => s.level === 2 && !KNOWN_SECTIONS.has(s.title.toLowerCase()))
    .map((s) => ({ title: s.title, content: body.slice(s.contentStart, s.end).trim() }))
  return {
    ...summary,
    acceptance: boxes,
    so_that: sectionText(body, 'So that'),
    context: sectionText(body, 'Context'),
    branch: str(parsed.data.branch),
    log: logOf(body),
    verifications: verificationsOf(body),
    extra_sections: extra,
  }
}

const isMap = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v)
const absent = (v: unknown) => v === undefined || v === null
const isText = (v: unknown) => typeof v === 'string' || v instanceof Date
/** A time with a numeric offset, as a person may write one: its date and clock, and an offset of at most 23:59. */
const OFFSET_TIME = /^(\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2})(?:\.\d{1,9})?[+-](?:[01]\d|2[0-3]):[0-5]\d$/
/** A real time: RFC 3339 UTC as dacli writes it, or with a numeric offset (its date and clock must exist). */
const isMoment = (v: unknown): boolean => {
  if (v instanceof Date) return Number.isFinite(v.getTime())
  if (typeof v !== 'string') return false
  const m = OFFSET_TIME.exec(v)
  return epochOfStamp(v) !== null || (m !== null && epochOfStamp(`${m[1]}Z`) !== null)
}
const show = (v: unknown) => {
  const j = JSON.stringify(v instanceof Date ? v.toISOString() : v) ?? String(v)
  return j.length > 60 ? `${j.slice(0, 57)}...` : j
}

function bad(field: string, v: unknown, want: string): never {
  throw new InvalidValueError('invalid-field', field, `field "${field}" is ${show(v)}; expected ${want}`)
}

function isDep(item: unknown): boolean {
  if (typeof item === 'string' || typeof item === 'number') return String(item).trim() !== ''
  if (!isMap(item)) return false
  const on = item.on
  const type = item.type
  return (
    (typeof on === 'string' ? on.trim() !== '' : typeof on === 'number') &&
    (absent(type) || (typeof type === 'string' && (DEP_TYPES as readonly string[]).includes(type.toUpperCase())))
  )
}

const isPriority = (v: unknown): v is Priority => typeof v === 'string' && (PRIORITIES as readonly string[]).includes(v)

/**
 * Every field dacli reads from a task file must have its type: the id its format (ids become lock and
 * file names), the rest their documented shapes. A wrong value is never coerced into a default (an
 * `owner: [1, 2]` read as "unowned" would let anyone act): the file is refused, naming the field.
 */
function checkTaskFields(d: Record<string, unknown>): void {
  if (!isId('task', d.id)) {
    throw new InvalidValueError('invalid-id', 'id', `field "id" is ${show(d.id)}; expected t-<ULID>`)
  }
  const agentOrEmpty = (field: string, v: unknown) => {
    if (absent(v) || v === '') return
    if (typeof v !== 'string') bad(field, v, 'an agent id')
    if (!isId('agent', v))
      throw new InvalidValueError('invalid-id', field, `field "${field}" is ${show(v)}; expected an agent id (a-…)`)
  }
  agentOrEmpty('owner', d.owner)
  if (!absent(d.claim)) {
    const c = d.claim
    if (!isMap(c) || !isText(c.at) || !(absent(c.expires) || isText(c.expires))) {
      bad('claim', c, '{by, at, expires}')
    }
    // A lease that names no moment would never expire (and `at` would date nothing): refused, never read as "forever".
    for (const k of ['at', 'expires'] as const) {
      if (!absent(c[k]) && !isMoment(c[k])) bad(`claim.${k}`, c[k], 'an RFC 3339 time such as 2026-12-01T12:00:00Z')
    }
    agentOrEmpty('claim.by', c.by)
    if (typeof c.by !== 'string') bad('claim.by', c.by, 'an agent id')
    // The remote that arbitrates the claim: a list or number read as "none" would renew and release it here only.
    const r = c.remote
    if (!absent(r) && (typeof r !== 'string' || r === '' || r.startsWith('-') || /[\s\u0000-\u001f\u007f]/.test(r)))
      bad('claim.remote', r, 'a git remote name such as origin')
  }
  // A string, exactly: `[must]` is a list whose String() is "must", and would reach a document as a list.
  if (!absent(d.priority) && !isPriority(d.priority)) {
    bad('priority', d.priority, PRIORITIES.join(', '))
  }
  if (!absent(d.estimate)) {
    const e = d.estimate
    const n = isMap(e) ? [e.optimistic, e.probable, e.pessimistic] : []
    const ok = n.length === 3 && n.every(estimateValue)
    if (!ok || !((n[0] as number) <= (n[1] as number) && (n[1] as number) <= (n[2] as number))) {
      bad('estimate', e, `{optimistic, probable, pessimistic}: three numbers with 0 ≤ o ≤ m ≤ p ≤ ${MAX_ESTIMATE}`)
    }
  }
  if (!absent(d.depends_on) && !(Array.isArray(d.depends_on) && d.depends_on.every(isDep))) {
    bad('depends_on', d.depends_on, 'a list of {on: <ref>, type: FS|SS|FF|SF} (or "<ref>" / "<ref>:SS")')
  }
  for (const f of ['parent', 'blocked_by']) {
    if (!absent(d[f]) && typeof d[f] !== 'string' && typeof d[f] !== 'number') bad(f, d[f], 'a task reference')
  }
  if (!absent(d.created_by) && typeof d.created_by !== 'string') bad('created_by', d.created_by, 'an agent id')
  if (!absent(d.created) && !isText(d.created)) bad('created', d.created, 'an RFC 3339 time')
  // Up to 2^53 − 1: beyond it a number is not read as written, and a rewrite would not bump it.
  if (d.version !== undefined && !(Number.isSafeInteger(d.version) && (d.version as number) >= 0)) {
    bad('version', d.version, `a whole number from 0 to ${Number.MAX_SAFE_INTEGER}`)
  }
  if (
    !absent(d.aliases) &&
    !(Array.isArray(d.aliases) && d.aliases.every((a) => Number.isInteger(a) && (a as number) > 0))
  ) {
    bad('aliases', d.aliases, 'a list of sequence numbers')
  }
  if (!absent(d.github)) {
    const g = d.github
    if (!isMap(g) || !(absent(g.issue) || (Number.isInteger(g.issue) && (g.issue as number) > 0))) {
      bad('github', g, '{issue, repo, synced_at}')
    }
  }
  if (
    !absent(d.tags) &&
    !(Array.isArray(d.tags) && d.tags.every((t) => typeof t === 'string' || typeof t === 'number'))
  ) {
    bad('tags', d.tags, 'a list of words')
  }
  if (!absent(d.unverified) && typeof d.unverified !== 'boolean') bad('unverified', d.unverified, 'true or false')
  for (const f of ['touches', 'labels']) {
    const v = d[f]
    if (!absent(v) && !(Array.isArray(v) && v.every((t) => typeof t === 'string' || typeof t === 'number'))) {
      bad(f, v, f === 'touches' ? 'a list of paths or globs' : 'a list of labels')
    }
  }
  if (!absent(d.milestone) && typeof d.milestone !== 'string' && typeof d.milestone !== 'number') {
    bad('milestone', d.milestone, 'a milestone name')
  }
  // Branches go to git (push, branch --contains, branch -d): a hand-edited `--output=…` or `a b` is refused
  // here, never passed on as an option or split into two arguments.
  if (!absent(d.branch) && !(typeof d.branch === 'string' && isBranchName(d.branch))) {
    bad(
      'branch',
      d.branch,
      'a git branch name such as dacli/alpha-7 (not -…, refs/…, HEAD; no spaces or .., ~ ^ : ? * [ \\)',
    )
  }
  if (!absent(d.worktree)) {
    const w = d.worktree
    if (
      !isMap(w) ||
      typeof w.path !== 'string' ||
      w.path === '' ||
      typeof w.branch !== 'string' ||
      !isBranchName(w.branch)
    ) {
      bad('worktree', w, '{path, branch}: a folder and a git branch name')
    }
  }
  // What `--label` and `--milestone` refuse is refused in the file too: it would go to GitHub as it stands.
  const fits = (check: () => unknown) => {
    try {
      check()
      return true
    } catch {
      return false
    }
  }
  if (Array.isArray(d.labels) && !d.labels.every((l) => fits(() => checkLabel(String(l))))) {
    bad('labels', d.labels, 'a list of labels, each 1–50 characters without a comma or a control character')
  }
  if (Array.isArray(d.touches) && !d.touches.every((t) => touchProblem(String(t)) === null)) {
    bad(
      'touches',
      d.touches,
      'a list of paths or globs relative to the repository root (never absolute, never .., no negation)',
    )
  }
  if (!absent(d.milestone) && !fits(() => checkMilestone(String(d.milestone)))) {
    bad('milestone', d.milestone, 'a milestone name of one line, 1–200 characters')
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
  const parts = [`${headingLine(1, t.title)}\n`]
  if (t.so_that) parts.push(`## So that\n\n${t.so_that.trim()}\n`)
  if (t.context) parts.push(`## Context\n\n${t.context.trim()}\n`)
  parts.push(`## Acceptance\n\n${t.accept.map((a) => `- [ ] ${a}\n`).join('')}`)
  parts.push(`## Log\n\n${t.log}\n`)
  return `\n${parts.join('\n')}`
}

export interface NewTaskFields {
  id: string
  created: string
  created_by: string
  priority: string | null
  estimate: { optimistic: number; probable: number; pessimistic: number } | null
  depends_on: { on: string; type: string }[]
  parent: string | null
  extra?: Record<string, unknown>
}

/** A token YAML reads back as the same string (no quoting, no type of its own). */
// Colons only between digits (times): a trailing `:` ends a flow-map key (`{on: A:0:, …}` does not parse).
const PLAIN = /^[A-Za-z0-9][A-Za-z0-9._/@+-]*(?::[0-9](?:[0-9.:]*[0-9.])?Z?)*$/
const NOT_A_STRING =
  /^(?:true|false|null|yes|no|on|off|~|[-+]?(?:\d[\d_]*(?:\.\d*)?|\.\d+)(?:e[-+]?\d+)?|0x[0-9a-f]+|0o[0-7]+|\.inf|\.nan)$/i

/** A string YAML writes and reads back plain, as itself. */
export const plainToken = (v: string): boolean => PLAIN.test(v) && !NOT_A_STRING.test(v)

/** YAML for a value dacli writes: plain where that reads back unchanged, a JSON string (valid YAML) otherwise. */
export function yamlValue(v: unknown): string {
  if (v === null || v === undefined) return 'null'
  if (typeof v === 'number' || typeof v === 'boolean') return String(v)
  if (typeof v === 'string') return plainToken(v) ? v : JSON.stringify(v)
  if (Array.isArray(v)) return `[${v.map(yamlValue).join(', ')}]`
  return `{${Object.entries(v as Record<string, unknown>)
    .map(([k, x]) => `${k}: ${yamlValue(x)}`)
    .join(', ')}}`
}

/**
 * A new task file: frontmatter in a fixed, readable order (maps in flow style, one dependency per
 * line), then the body. Written by hand so creating a task needs no YAML library; the returned data
 * is exactly what a YAML parser reads back (a property test holds the two together).
 */
export function renderTaskFile(f: NewTaskFields, body: string): { text: string; data: Record<string, unknown> } {
  const data: Record<string, unknown> = { id: f.id, kind: 'task', created: f.created, created_by: f.created_by }
  if (f.priority !== null) data.priority = f.priority
  if (f.estimate !== null) data.estimate = f.estimate
  if (f.depends_on.length > 0) data.depends_on = f.depends_on
  if (f.parent !== null) data.parent = f.parent
  Object.assign(data, f.extra ?? {})
  data.version = 1
  const lines = Object.entries(data).map(([k, v]) =>
    Array.isArray(v) && v.length > 0
      ? `${k}:\n${v.map((x) => `  - ${yamlValue(x)}`).join('\n')}`
      : `${k}: ${yamlValue(v)}`,
  )
  return { text: `---\n${lines.join('\n')}\n---\n${body}`, data }
}
