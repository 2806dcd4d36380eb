// A task's identity read straight from a file's bytes (a git blob, an old
// version), without the YAML library: the `id:` line of the frontmatter. History
// and the record merge pair versions of one task across renames and renumbers by it.

import { frontOf } from './flat.js'

const ID_LINE = /^id:[ \t]*["']?(t-[0-9A-Za-z]+)["']?[ \t]*$/im

/** The task id in a task file's frontmatter (`t-<ULID>`, the ULID upper-cased), or null. */
export function taskIdInText(text: string): string | null {
  const front = frontOf(text)
  const id = front === null ? undefined : ID_LINE.exec(front)?.[1]
  return id === undefined ? null : `t-${id.slice(2).toUpperCase()}`
}

/** Is this `/`-separated path a file in a task folder (`…/projects/<p>/tasks/<folder>/<name>.md`)? */
export function isTaskFilePath(p: string): boolean {
  const parts = p.split('/')
  return parts.at(-3) === 'tasks' && parts.at(-5) === 'projects' && p.endsWith('.md')
}
