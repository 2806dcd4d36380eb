// Building project documents from store records (plain objects; no zod at run time).

import type { Out } from '../../clikit/io.js'
import type { Broken, ProjectRecord } from '../../format/model.js'
import type { Store } from '../../store/store.js'
import { projectDocument, statusCounts } from '../shared/projectdoc.js'
import type { CountsT, ProjectDocT } from './json.js'

/** A project's task counts, and the task files left out of them because they could not be read (announced). */
export async function countsOf(store: Store, slug: string): Promise<{ counts: CountsT; broken: readonly Broken[] }> {
  const listing = await store.listTasks(slug)
  return { counts: statusCounts(listing.tasks), broken: listing.broken }
}

export const projectDoc = (p: ProjectRecord, counts: CountsT, removed = false): ProjectDocT =>
  projectDocument(p, counts, removed)

export function renderProject(out: Out, d: ProjectDocT): void {
  out.line(`${out.style('bold', d.title)}  ${out.style('dim', `(${d.slug})`)}`)
  out.fields([
    ['status', d.status],
    ['stage', d.stage],
    [
      'tasks',
      `${d.total} — ${d.counts.open} open, ${d.counts.active} active, ${d.counts.blocked} blocked, ${d.counts.done} done`,
    ],
    ['github', d.github?.repo ?? null],
    ['file', d.path],
  ])
  const s = d.sections
  for (const [title, text] of [
    ['Vision', s.vision],
    ['Goal', s.goal],
    ['Constraints', s.constraints],
    ['Out of scope', s.out_of_scope],
    ['Success criteria', s.success_criteria],
  ] as const) {
    if (text === null) continue
    out.line('')
    out.line(out.style('bold', title))
    for (const l of text.split('\n')) out.line(`  ${l}`)
  }
}
