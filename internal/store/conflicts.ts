// Conflict copies: `<file>.conflict-<commit>`, written by `record pull` beside a
// file both sides changed (ours stays in place). They stay until a person resolves
// them; `doctor`, `status` and `overview` report them and `record push` refuses.

import { cmd } from '../base/commands.js'
import { walkTree } from './fsio.js'

const CONFLICT_COPY = /\.conflict-[0-9a-f]{7,}$/

export interface ConflictCopy {
  /** The copy (absolute). */
  copy: string
  /** The file it is the other side's version of (absolute). */
  original: string
}

/**
 * Every conflict copy under `.dacli/` (never under cache/, locks/ or worktrees/). `events/` holds append-only files
 * with unique names that never conflict; `skipEvents` spares walking it (status, overview).
 */
export function conflictCopies(dir: string, opts: { skipEvents?: boolean } = {}): ConflictCopy[] {
  const skip = new Set(['cache', 'locks', 'worktrees', ...(opts.skipEvents ? ['events'] : [])])
  const out: ConflictCopy[] = []
  walkTree(dir, (p, e, d) => {
    if (e.isDirectory()) return d !== dir || !skip.has(e.name)
    if (CONFLICT_COPY.test(e.name)) out.push({ copy: p, original: p.replace(CONFLICT_COPY, '') })
    return false
  })
  return out.sort((a, b) => (a.copy < b.copy ? -1 : a.copy > b.copy ? 1 : 0))
}

/** What to do about one copy, naming the file to keep (config.yml, a task's .md, …). */
export function conflictHint(relOriginal: string): string {
  return `compare ${relOriginal} with this copy, keep what is right in ${relOriginal}, delete this copy, then ${cmd('record')} (record push refuses until then)`
}
