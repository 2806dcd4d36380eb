// Every task's summary with the texts of its acceptance criteria: what `lint` reads of each task. Through the
// workspace index — the summaries a listing keeps (`tasks/<project>`) and one section of criteria texts per
// project (`criteria/<project>`), both validated per file like every cache entry — so a cold run reads and
// parses each task file once and writes one cache file. A full record (the whole body as JSON, about twice the
// file) is not made: nothing lint checks needs it, and writing 10,000 of them was most of a cold lint's cost.

import { type Broken, brokenOf, type TaskSummary } from '../format/model.js'
import { fieldsNow, readTaskFields } from '../format/taskfile.js'
import { compact, expand } from './compact.js'
import type { Section, Stamp } from './filecache.js'
import { deduplicated, listTaskFiles, MOVE_PASSES, type Paths, readTaskText, type SummarySection } from './taskindex.js'

/** A task summary and its criteria's texts, in the file's order. */
export type CheckedTask = TaskSummary & { criteria: string[] }

/** The criteria's texts of each task file, by `<status>/<file name>` (a section of the index). */
export type CriteriaSection = Section<string[]>

/**
 * One project's tasks with their criteria (deduplicated by id, in sequence order), and the files that could
 * not be read. A pass that saw a file vanish (a claim moving it) is redone, as a listing's is.
 */
export async function listCriteria(
  p: Paths,
  project: string,
  summaries: SummarySection,
  criteria: CriteriaSection,
): Promise<{ tasks: CheckedTask[]; broken: Broken[] }> {
  for (let attempt = 1; ; attempt++) {
    // Nothing kept for the project in either (a cold cache): every file is read, its stamp taken from the open file.
    const listed = listTaskFiles(p, project, { stat: !(summaries.isEmpty() && criteria.isEmpty()) })
    const broken = [...listed.broken]
    let vanished = listed.vanished
    const all: CheckedTask[] = []
    for (const f of listed.files) {
      const key = `${f.status}/${f.name}`
      const hit = f.stamp === undefined ? undefined : summaries.get(key, f.stamp)
      const texts = hit === undefined ? undefined : criteria.get(key, f.stamp as Stamp)
      if (hit !== undefined && texts !== undefined) {
        all.push(Object.assign(expand(hit, f), { criteria: texts }))
        continue
      }
      let text: string
      let task: CheckedTask
      try {
        text = readTaskText(f)
        const { summary, boxes } = fieldsNow(text, f) ?? (await readTaskFields(text, f))
        task = Object.assign(summary, { criteria: boxes.map((b) => b.text) })
      } catch (e) {
        if ((e as NodeJS.ErrnoException).code === 'ENOENT') vanished = true
        else broken.push(brokenOf(f.path, e))
        continue
      }
      summaries.set(key, f.stamp as Stamp, compact(task))
      criteria.set(key, f.stamp as Stamp, task.criteria)
      all.push(task)
    }
    if (vanished && attempt < MOVE_PASSES) continue
    return { tasks: deduplicated(all).tasks, broken }
  }
}
