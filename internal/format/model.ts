// Store-side types of the objects (the wire documents live in each slice's json.ts).

/** An object file that is not what it claims to be (no frontmatter, not YAML, missing id or kind). */
export class ParseError extends Error {
  override name = 'ParseError'
}

/**
 * A file that parses but holds a value dacli refuses to use: an id that is not in its format
 * (`invalid-id`: ids become paths) or a field of the wrong type (`invalid-field`). Reported by doctor
 * under `code`, naming the file and `field`; commands refuse the file rather than guess.
 */
export class InvalidValueError extends ParseError {
  override name = 'InvalidValueError'
  constructor(
    readonly code: 'invalid-id' | 'invalid-field',
    readonly field: string,
    message: string,
  ) {
    super(message)
  }
}

export const STATUSES = ['open', 'active', 'blocked', 'done'] as const
export type Status = (typeof STATUSES)[number]
/** Terminality rank: when one task file is found in two folders, the more terminal copy wins. */
export const STATUS_RANK: Record<Status, number> = { open: 0, active: 1, blocked: 2, done: 3 }

export const PRIORITIES = ['must', 'should', 'could', 'wont'] as const
export type Priority = (typeof PRIORITIES)[number]

export const DEP_TYPES = ['FS', 'SS', 'FF', 'SF'] as const
export type DepType = (typeof DEP_TYPES)[number]

export const PROJECT_STATUSES = ['active', 'paused', 'done', 'abandoned'] as const
export const STAGES = ['definition', 'elicitation', 'approach', 'design'] as const

export interface Estimate {
  optimistic: number
  probable: number
  pessimistic: number
}

/** PERT expected time Te = (o + 4m + p) / 6, rounded to 3 decimals. */
export const teOf = (e: Estimate): number =>
  Math.round(((e.optimistic + 4 * e.probable + e.pessimistic) / 6) * 1000) / 1000

export interface Claim {
  by: string
  at: string
  expires: string | null
  /** The git remote that arbitrates this claim (`refs/dacli/claims/<id>` there), or null for a claim in this clone only. */
  remote: string | null
}

/** A task's worktree (`dacli worktree add`): its folder relative to the repository root, and its branch. */
export interface TaskWorktree {
  path: string
  branch: string
}

export interface Dependency {
  /** A task id (`t-<ULID>`) as written by dacli, or a reference written by hand. */
  on: string
  type: DepType
}

export interface GithubLink {
  issue: number | null
  repo: string | null
  synced_at: string | null
}

export interface LogEntry {
  at: string
  actor: string
  verb: string
  details: string
}

export interface VerificationEntry {
  at: string
  actor: string
  command: string
  exit_code: number | null
  duration_ms: number
  output_digest: string
  /** The acceptance items the run checked. */
  checked: number[]
  /** The branch and commit of the worktree the command ran in (null outside git, detached or unborn). */
  branch: string | null
  commit: string | null
}

export interface AcceptanceItem {
  n: number
  text: string
  checked: boolean
}

/** What lists, the frontier and the planner need; cached under `.dacli/cache/`. */
export interface TaskSummary {
  id: string
  seq: number
  slug: string
  project: string
  status: Status
  /** Path relative to the workspace root's parent, e.g. `.dacli/projects/p/tasks/open/001-x.md`. */
  path: string
  title: string
  owner: string | null
  claim: Claim | null
  priority: Priority | null
  estimate: Estimate | null
  depends_on: Dependency[]
  parent: string | null
  version: number
  aliases: number[]
  github: GithubLink | null
  created: string | null
  created_by: string | null
  tags: string[]
  acceptance_done: number
  acceptance_total: number
  unverified: boolean
  /** What the task waits on when blocked (a task id or reference), or null. */
  blocked_by: string | null
  worktree: TaskWorktree | null
  /** The paths the task will touch: globs relative to the repository root (`touches:`). */
  touches: string[]
  /** Labels (`labels:`), mapped to GitHub labels. */
  labels: string[]
  /** The milestone it belongs to (`milestone:`), or null. */
  milestone: string | null
}

export interface TaskRecord extends TaskSummary {
  acceptance: AcceptanceItem[]
  so_that: string | null
  context: string | null
  /**
   * The branch holding the task's work once its worktree is gone but the branch, not on trunk, was kept
   * (`branch:`, written by `worktree remove`/`prune`), or null: the close's landing check still applies to it.
   */
  branch: string | null
  log: LogEntry[]
  /** Evidence of `--verify` runs (`## Verification`, one JSON object per line). */
  verifications: VerificationEntry[]
  /** Other `## ` sections by title (verbatim content), in file order. */
  extra_sections: { title: string; content: string }[]
}

export interface ProjectRecord {
  id: string
  slug: string
  title: string
  status: string
  stage: string
  path: string
  created: string | null
  created_by: string | null
  github: { repo: string | null; public_confirmed: string | null } | null
  sections: {
    vision: string | null
    goal: string | null
    constraints: string | null
    out_of_scope: string | null
    success_criteria: string | null
  }
}

/** An object file that could not be read; skipped by lists, reported by doctor, never overwritten. */
export interface Broken {
  path: string
  reason: string
  /** Why, as doctor's finding code: `unparseable-object`, `invalid-id`, `invalid-field`, `invalid-utf8`, `symlink-in-workspace` … */
  code: string
}

/** The skipped-item entry for a file that failed to read or parse with `err`. */
export function brokenOf(p: string, err: unknown): Broken {
  const e = err as { message?: string; code?: unknown }
  const code =
    err instanceof InvalidValueError || err instanceof InvalidTextError
      ? err.code
      : e?.code === 'symlink-in-workspace' || (err as Error)?.name === 'LinkError'
        ? 'symlink-in-workspace'
        : e?.code === 'special-file' || e?.code === 'forged-event'
          ? e.code
          : typeof e?.code === 'string' && /^E[A-Z]+$/.test(e.code)
            ? 'unreadable-path' // the system refused the read (EACCES, EISDIR, EIO …)
            : 'unparseable-object'
  return { path: p, reason: String(e?.message ?? err), code }
}

/** `{code, field}` of a value error, for an error's details ({} for other errors). */
export function fieldOf(err: unknown): { code?: string; field?: string } {
  if (err instanceof InvalidValueError) return { code: err.code, field: err.field }
  if (err instanceof InvalidTextError) return { code: err.code }
  return {}
}

/** A file whose bytes are not valid UTF-8: read as text it would be silently changed, so it is refused. */
export class InvalidTextError extends ParseError {
  override name = 'InvalidTextError'
  readonly code = 'invalid-utf8'
}

export interface Identity {
  id: string
  grant: 'rw' | 'ro'
  role: string | null
  parent: string | null
}

/** RFC 3339 UTC with second precision (base/time.ts; re-exported where the store's callers look for it). */
export { stamp } from '../base/time.js'

/** A task file name: `NNN-slug.md` (at least three digits). */
export const TASK_FILE = /^(\d{3,})-([a-z0-9][a-z0-9-]*)\.md$/

/** A task's number as its file name and references write it: at least three digits. */
export const seqText = (seq: number): string => String(seq).padStart(3, '0')

export function taskFileName(seq: number, slug: string): string {
  return `${seqText(seq)}-${slug}.md`
}

/** The cached part of a task record: everything but the body-derived details. */
export function summaryOf(r: TaskRecord): TaskSummary {
  const {
    acceptance: _a,
    so_that: _s,
    context: _c,
    branch: _b,
    log: _l,
    extra_sections: _e,
    verifications: _v,
    ...summary
  } = r
  return summary
}

/** The root identity: the person who owns the workspace. */
export const ROOT_ID = 'a-root'
