// Everything that needs the YAML library, in one module the store loads with
// import() on first need, so read paths served from the cache never load it.

import * as path from 'node:path'
import { isMap, isSeq } from 'yaml'
import { type Parsed, ParseError, parseObject, renderEdited, renderNew, setScalar } from './frontmatter.js'
import { sectionText, titleOf } from './markdown.js'
import type { ProjectRecord, TaskRecord } from './model.js'
import { parseTask, recordOf } from './taskfile.js'
import type { TaskFileRef } from './taskindex.js'

export { ParseError, parseObject, renderEdited, renderNew, setScalar }

const loc = (f: Pick<TaskFileRef, 'project' | 'status' | 'name' | 'path'>) => ({
  project: f.project,
  status: f.status,
  name: f.name,
  path: f.path,
})

export function parseTaskRecord(
  text: string,
  f: Pick<TaskFileRef, 'project' | 'status' | 'name' | 'path'>,
): TaskRecord {
  return parseTask(text, loc(f)).record
}

export function parseTaskFull(
  text: string,
  f: Pick<TaskFileRef, 'project' | 'status' | 'name' | 'path'>,
): { record: TaskRecord; parsed: Parsed } {
  return parseTask(text, loc(f))
}

export function recordOfText(text: string, f: Pick<TaskFileRef, 'project' | 'status' | 'name' | 'path'>): TaskRecord {
  return recordOf(parseObject(text), loc(f))
}

const str = (v: unknown): string | null => (typeof v === 'string' && v !== '' ? v : null)

export function projectOf(text: string, slug: string, relPath: string): ProjectRecord {
  const { data, split } = parseObject(text)
  if (data.kind !== undefined && data.kind !== 'project') {
    throw new ParseError(`"kind" is ${JSON.stringify(data.kind)}, expected "project"`)
  }
  const body = split.body
  const gh = data.github
  const github =
    gh !== null && typeof gh === 'object' && !Array.isArray(gh)
      ? {
          repo: str((gh as Record<string, unknown>).repo),
          public_confirmed: str((gh as Record<string, unknown>).public_confirmed),
        }
      : null
  return {
    id: str(data.id) ?? `p-${slug}`,
    slug,
    title: titleOf(body) ?? slug,
    status: str(data.status) ?? 'active',
    stage: str(data.stage) ?? 'definition',
    path: relPath.split(path.sep).join('/'),
    created: str(data.created),
    created_by: str(data.created_by),
    github,
    sections: {
      vision: sectionText(body, 'Vision'),
      goal: sectionText(body, 'Goal'),
      constraints: sectionText(body, 'Constraints'),
      out_of_scope: sectionText(body, 'Out of scope'),
      success_criteria: sectionText(body, 'Success criteria'),
    },
  }
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

/** The text of a new task file: frontmatter in a fixed, readable order, then the body. */
export function renderNewTask(f: NewTaskFields, body: string): string {
  const data: Record<string, unknown> = { id: f.id, kind: 'task', created: f.created, created_by: f.created_by }
  if (f.priority !== null) data.priority = f.priority
  if (f.estimate !== null) data.estimate = f.estimate
  if (f.depends_on.length > 0) data.depends_on = f.depends_on
  if (f.parent !== null) data.parent = f.parent
  Object.assign(data, f.extra ?? {})
  data.version = 1
  return renderNew(data, body, (doc) => {
    flow(doc.get('estimate', true))
    const deps = doc.get('depends_on', true)
    if (isSeq(deps)) for (const item of deps.items) flow(item)
  })
}

function flow(node: unknown): void {
  if (isMap(node) || isSeq(node)) node.flow = true
}
