// The targets table of bench/results/latest.md (bench/report.mjs) never calls a target met on a figure it does not
// show, and says which figures an earlier run took (BENCH_MERGE, BENCH_ONLY). Rendered from the committed
// latest.json with one figure changed at a time.

import { readFileSync } from 'node:fs'
import { expect, test } from 'vitest'
import { report } from './report.mjs'

const base = () => JSON.parse(readFileSync(new URL('./results/latest.json', import.meta.url), 'utf8'))

/** The targets table's row whose first cell starts with `label`, as its cells. */
function row(md: string, label: string): string[] {
  const line = md.split('\n').find((l) => l.startsWith(`| ${label}`))
  if (line === undefined) throw new Error(`no row ${label}`)
  return line.split(' | ').map((c) => c.replace(/^\| /, '').replace(/ \|$/, ''))
}

test('a 100k figure kept from an earlier run is shown with its date; a missing one is not met', () => {
  const r = base()
  const name = 'after an edit: next'
  const at100k = r.scenarios.find((s: { name: string; size: string }) => s.name === name && s.size === '100k')
  expect(at100k).toBeDefined()
  at100k.from = '2026-01-01T00:00:00.000Z'
  const kept = row(report(r), `100,000 tasks: ${name}`)
  expect(kept[2]).toContain(`${at100k.ratio}×`)
  expect(kept[2]).toContain('the 100k point from the run of 2026-01-01T00:00:00.000Z')
  r.scenarios = r.scenarios.filter((s: { name: string; size: string }) => !(s.name === name && s.size === '100k'))
  const missing = row(report(r), `100,000 tasks: ${name}`)
  expect(missing.slice(2)).toEqual(['not measured', '—'])
})

test("the warm server's memory at 10k is held to 150 MB in the targets table", () => {
  const r = base()
  const warm = r.mcp.memory.find((m: { size: string }) => m.size === '10k')
  warm.rss_mib = 160 // 167.8 MB
  expect(row(report(r), 'MCP @10k, warm')[3]).toBe('**no**')
  warm.rss_mib = 140 // 146.8 MB
  expect(row(report(r), 'MCP @10k, warm')[3]).toBe('yes')
})

test('every scenario with a target measured in the run has its row in the targets table', () => {
  const r = base()
  const md = report(r)
  const rows = md
    .slice(md.indexOf('## Every target'), md.indexOf('## Every scenario'))
    .split('\n')
    .filter((l) => l.startsWith('| ') && !l.startsWith('| target |'))
    .map((l) => l.split(' | ').map((c) => c.replace(/^\| /, '').replace(/ \|$/, '')))
  const targeted = r.scenarios.filter(
    (s: { target: number | null; from?: string; size: string }) => s.target !== null && !s.from && s.size !== '100k',
  )
  expect(targeted.length).toBeGreaterThan(20)
  for (const s of targeted as { name: string; size: string; target: number; ratio: number }[]) {
    const shown = rows.some((c) => c[1] === `≤ ${s.target}×` && c[2] === `${s.ratio}×`)
    expect(shown, `${s.name} @${s.size}`).toBe(true)
  }
})

test("the MCP median's row shows the idle control beside the figure, and the control never decides the target", () => {
  const r = base()
  const m = r.servers.mcp
  m.median_ms = 3.5
  delete m.idle_no_edit
  const without = row(report(r), 'MCP @10k after another process’s edit: median')
  expect(without[2]).not.toContain('idle pause')
  m.idle_no_edit = { calls: 75, pause_ms: 150, median_ms: 2.5, p99_ms: 9 }
  const shown = row(report(r), 'MCP @10k after another process’s edit: median')
  expect(shown[2]).toContain('3.5 ms')
  expect(shown[2]).toContain('the same calls after as long an idle pause and no edit: 2.5 ms')
  expect(shown[3]).toBe('**no**')
  expect(report(r)).toContain('each after a pause of 150 ms (the median edit) with nothing edited: median 2.5 ms')
})
