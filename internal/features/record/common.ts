// Helpers shared by the record slice's commands (no command lives here).

import type { Out } from '../../clikit/io.js'
import type { FileChangedT } from './json.js'

export const shortId = (oid: string) => oid.slice(0, 10)

/** RFC 3339 UTC with second precision, from git's seconds. */
export const timeOf = (seconds: number) => new Date(seconds * 1000).toISOString().replace(/\.\d{3}Z$/, 'Z')

const MARK = { added: 'A', modified: 'M', deleted: 'D' } as const

export function renderChanges(out: Out, files: readonly FileChangedT[], max = 20): void {
  for (const f of files.slice(0, max)) out.line(`  ${MARK[f.change]} ${f.path}`)
  if (files.length > max) out.line(out.style('dim', `  … and ${files.length - max} more`))
}
