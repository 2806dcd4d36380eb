import { describe, expect, test } from 'vitest'
import { mermaid } from './critrender.js'

describe('critical-path --format mermaid', () => {
  test('a title is shown as typed: its #, quotes and angle brackets are entities, never markup', () => {
    const row = {
      id: 't-1',
      ref: 'ledger/001-x',
      title: 'ship <b>bold</b> "now" #quot; #1',
      te: 2,
      status: 'open',
      external: false,
      critical: true,
    }
    const doc = { tasks: [row], critical_graph: [] } as unknown as Parameters<typeof mermaid>[0]
    const line = mermaid(doc, []).split('\n')[1] as string
    expect(line).toBe('  n1["ledger/1 ship #lt;b#gt;bold#lt;/b#gt; #quot;now#quot; #35;quot; #35;1 (Te 2)"]')
    expect(line).not.toMatch(/[<>]/)
  })
})
