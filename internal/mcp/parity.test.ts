// Parity with the CLI, table-wide: a Tier-1 tool's parameters are its command's declaration (schema.ts), so a
// refusal or next action that names a flag points at a parameter the agent can send. Proven over every command
// line the source can print (`cmd('…')` hints below the slices, `dacli …` text in the slices and the kernel):
// each one whose command a Tier-1 tool wraps names only flags that tool takes. A planted stale hint shows the
// check bites.

import { readdirSync, readFileSync } from 'node:fs'
import * as path from 'node:path'
import { describe, expect, test } from 'vitest'
import { scanText } from '../testkit/jstext.js'
import { commandLines, type Line, stale, tools } from '../testkit/parity.js'
import { REPO_ROOT } from '../testkit/ws.js'

function sources(): string[] {
  const out: string[] = []
  for (const top of ['internal', 'cmd']) {
    for (const e of readdirSync(path.join(REPO_ROOT, top), { recursive: true, withFileTypes: true })) {
      if (!e.isFile() || !e.name.endsWith('.ts') || e.name.endsWith('.test.ts')) continue
      const rel = path.relative(REPO_ROOT, path.join(e.parentPath, e.name)).split(path.sep).join('/')
      if (rel.startsWith('internal/testkit/') || rel === 'internal/cli/manifest.gen.ts') continue
      out.push(rel)
    }
  }
  return out.sort()
}

/** Each string and template literal of a source, `cmd('x')` read as the line it prints (`dacli x`). */
function linesIn(src: string): Line[] {
  const withCmd = src.replace(/\bcmd\(\s*(['"`])/g, '$1dacli ')
  return scanText(withCmd).strings.flatMap((s) => commandLines(s.text))
}

describe('no refusal or next action names a flag its tool lacks', () => {
  test('every Tier-1 tool takes every flag its command declares', () => {
    for (const t of tools) {
      const filled = t.params.flatMap((p) =>
        'flag' in p.source ? [p.source.flag] : 'arg' in p.source ? [p.source.arg.name] : [],
      )
      expect([...new Set(filled)].sort(), t.name).toEqual(
        [...t.entry.args.map((a) => a.name), ...Object.keys(t.entry.flags)].sort(),
      )
    }
  })

  test('every command line in the source, for every tool wrapping its command', () => {
    const all = sources().flatMap((f) => linesIn(readFileSync(path.join(REPO_ROOT, f), 'utf8')))
    // The scan sees the hints (a claim's, a close's, a cycle's): it is not vacuous.
    const wrapped = all.filter((l) => tools.some((t) => t.entry.path === l.path))
    expect(wrapped.length).toBeGreaterThan(20)
    expect(wrapped.some((l) => l.path === 'task done' && l.flags.includes('allow-unlanded'))).toBe(true)
    expect(wrapped.some((l) => l.path === 'task depend' && l.flags.includes('remove'))).toBe(true)
    expect(stale(all)).toEqual([])
  })

  test('a stale hint is caught (a planted one)', () => {
    const planted = linesIn("next: [cmd(`task done ${ref} --no-such-flag`), 'dacli next --project p --fetch']")
    expect(stale(planted)).toEqual(['finish_task takes no no_such_flag: dacli task done ${…} --no-such-flag'])
  })
})
