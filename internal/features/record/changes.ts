// The files a record command changed, as people see them (A/M/D lines, the list cut at 20).

import type { Out } from '../../clikit/io.js'
import type { FileChangedT } from './json.js'

const MARK = { added: 'A', modified: 'M', deleted: 'D' } as const

export function renderChanges(out: Out, files: readonly FileChangedT[], max = 20): void {
  for (const f of files.slice(0, max)) out.line(`  ${MARK[f.change]} ${f.path}`)
  if (files.length > max) out.line(out.style('dim', `  … and ${files.length - max} more`))
}
