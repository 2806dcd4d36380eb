// Command lines in text, against the Tier-1 tools (the parity check of internal/mcp/parity.test.ts, also run on
// live refusals): a command line for a command a Tier-1 tool wraps may name only flags that tool takes.

import { GLOBAL_FLAGS } from '../clikit/flags.js'
import { buildToolset } from '../mcp/call.js'
import { table } from './ws.js'

export const tools = buildToolset(table, 'full').tools
const paths = new Set(table.map((c) => c.path))

/** The command line a text spells at `at` (after `dacli `): its path (longest match) and the flags it names. */
export interface Line {
  readonly path: string
  readonly flags: readonly string[]
  readonly text: string
}

/**
 * Every `dacli <path> …` in a text: each runs to the next `dacli `, a closing backtick (a command quoted in
 * prose), a `; ` or `. ` (the sentence goes on), a line's end, or the end of the text.
 */
export function commandLines(text: string): Line[] {
  const out: Line[] = []
  const starts = [...text.matchAll(/\bdacli ([a-z][a-z-]*(?: [a-z][a-z-]*){0,2})/g)]
  starts.forEach((m, i) => {
    const words = (m[1] as string).split(' ')
    let found: string | null = null
    for (let n = words.length; n > 0 && found === null; n--) {
      const p = words.slice(0, n).join(' ')
      if (paths.has(p)) found = p
    }
    if (found === null) return
    const next = starts[i + 1]?.index ?? text.length
    const stop = /`|; |\. |\n/.exec(text.slice(m.index, next))
    const line = text.slice(m.index, stop === null ? next : m.index + stop.index)
    const flags = [...line.matchAll(/(?<![\w-])--([a-z][a-z0-9-]*)/g)].map((f) => f[1] as string)
    out.push({ path: found, flags, text: line.trim() })
  })
  return out
}

/** Problems: a command line for a Tier-1 tool's command naming a flag that tool does not take. */
export function stale(lines: readonly Line[]): string[] {
  const problems: string[] = []
  for (const l of lines) {
    for (const tool of tools.filter((t) => t.entry.path === l.path)) {
      // A parameter fills a declared flag (under the seed's name where the tool gives one).
      const filled = new Set(tool.params.flatMap((p) => ('flag' in p.source ? [p.source.flag] : [])))
      for (const f of l.flags) {
        if (Object.hasOwn(GLOBAL_FLAGS, f)) continue
        // A command taking free parameters (`run`) takes any plain --NAME in its `params` object.
        if (tool.entry.params !== undefined) continue
        if (!filled.has(f)) problems.push(`${tool.name} takes no ${f.replace(/-/g, '_')}: ${l.text}`)
      }
    }
  }
  return problems
}
