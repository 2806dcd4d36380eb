// Everything that needs the YAML library, in one module the store loads with
// import() on first need, so read paths served from the cache never load it.

import { applyEdits, type Parsed, ParseError, parseObject, renderEdited, renderNew, setScalar } from './frontmatter.js'
import type { TaskRecord } from './model.js'
import { recordOf, type TaskLocation } from './taskfile.js'

export { applyEdits, ParseError, parseObject, renderEdited, renderNew, setScalar }

const loc = (f: TaskLocation) => ({
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

export function parseTaskRecord(text: string, f: TaskLocation): TaskRecord {
  return parseTask(text, loc(f)).record
}

export function parseTaskFull(text: string, f: TaskLocation): { record: TaskRecord; parsed: Parsed } {
  return parseTask(text, loc(f))
}

export function recordOfText(text: string, f: TaskLocation): TaskRecord {
  return recordOf(parseObject(text), loc(f))
}
