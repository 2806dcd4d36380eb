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

/**
 * Is `old` a copy of a task that `cur` carries forward — every line of its body (after the frontmatter) also in
 * `cur`'s, a box's tick aside? A move dacli made and a crash interrupted leaves such a copy (the older state; the new
 * file only adds to it). A copy with a line `cur` lacks holds someone's work — a hand edit, or a `git merge` that
 * moved the task on one branch and changed it on the other — and is never removed as a leftover.
 */
export function supersededBy(old: string, cur: string): boolean {
  const lines = (t: string) => {
    const end = /^---\r?\n[\s\S]*?\r?\n---[ \t]*(\r?\n|$)/.exec(t)
    return (end === null ? t : t.slice(end[0].length))
      .split(/\r?\n/)
      .map((l) => l.trimEnd().replace(/^(\s*[-*+] )\[[ xX]\]/, '$1[ ]'))
      .filter((l) => l.trim() !== '')
  }
  const have = new Set(lines(cur))
  return lines(old).every((l) => have.has(l))
}
