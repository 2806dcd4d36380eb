// Everything that needs the YAML library, in one module the store loads with
// import() on first need, so read paths served from the cache never load it.

import * as path from 'node:path'
import { type Parsed, ParseError, parseObject, renderEdited, renderNew, setScalar } from './frontmatter.js'
import { sectionText, titleOf } from './markdown.js'
import type { ProjectRecord, TaskRecord } from './model.js'
import { recordOf, type TaskLocation } from './taskfile.js'
import type { TaskFileRef } from './taskindex.js'

export { ParseError, parseObject, renderEdited, renderNew, setScalar }

const loc = (f: Pick<TaskFileRef, 'project' | 'status' | 'name' | 'path'>) => ({
  project: f.project,
  status: f.status,
  name: f.name,
  path: f.path,
})

/** Parse a task file. Throws ParseError when it is not a task. */
export function parseTask(text: string, loc: TaskLocation): { record: TaskRecord; parsed: Parsed } {
  const parsed = parseObject(text)
  return { record: recordOf(parsed, loc), parsed }
}

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
