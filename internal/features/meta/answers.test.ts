// Issue 14, the contract checked against the seed: bad enum values carry the
// allowed set, an explicit requirements pointer must resolve, verdict refusals
// through MCP carry a policy and real next actions, precise messages, the prompt
// schema version in capabilities, and COMPATIBILITY.md's dated migration notes.

import * as fs from 'node:fs'
import * as path from 'node:path'
import { describe, expect, test } from 'vitest'
import { session, textJSON } from '../../testkit/mcp.js'
import { expectValid } from '../../testkit/schemas.js'
import { REPO_ROOT, workspace } from '../../testkit/ws.js'

describe('16. a bad enum value names the allowed set in details', () => {
  test('task list --status / --priority, task add --priority', async () => {
    const ws = await workspace()
    ;(await ws.dacli('project', 'add', 'P', '--slug', 'p')).expectExit(0)
    const st = (await ws.dacli('task', 'list', '--status', 'closed', '--json')).expectExit(2).error
    expect(st.details).toMatchObject({
      flag: '--status',
      value: 'closed',
      allowed: ['open', 'active', 'blocked', 'done', 'removed'],
    })
    const pr = (await ws.dacli('task', 'list', '--priority', 'bogus', '--json')).expectExit(2).error
    expect(pr.details).toMatchObject({
      flag: '--priority',
      value: 'bogus',
      allowed: ['must', 'should', 'could', 'wont'],
    })
    const two = (await ws.dacli('task', 'list', '--priority', 'bogus', '--status', 'closed', '--json')).expectExit(
      2,
    ).error
    expect(two.details.invalid.map((i: { flag: string }) => i.flag).sort()).toEqual(['--priority', '--status'])
    const lim = (await ws.dacli('task', 'list', '--limit', 'x', '--json')).expectExit(2).error
    expect(lim.details).toMatchObject({ flag: '--limit', value: 'x', expected: 'integer', min: 1, max: 100000 })
  })
})

describe('19. precise messages', () => {
  test('task list --limit -1 names the bound, not a missing value', async () => {
    const ws = await workspace()
    const r = (await ws.dacli('task', 'list', '--limit', '-1', '--json')).expectExit(2).error
    expect(r.message).toBe('--limit must be in 1..100000, got -1')
    expect((await ws.dacli('task', 'list', '--limit=-1', '--json')).expectExit(2).error.message).toBe(r.message)
  })
})

describe('17. an explicit DACLI_SKILL_REQUIREMENTS must resolve', () => {
  test('pointing at a missing file is exit 4 naming it, even when another location has a document', async () => {
    const ws = await workspace()
    ws.write('skills/dacli/capabilities.json', JSON.stringify({ schema_version: 1, required: [], optional: [] }))
    expect((await ws.dacli('version', '--compatibility', '--json')).expectExit(0).json.requirements).toBe(
      'skills/dacli/capabilities.json',
    )
    const env = { DACLI_SKILL_REQUIREMENTS: 'gone/capabilities.json' }
    const r = (await ws.dacli('version', '--compatibility', '--json', { env })).expectExit(4).error
    expect(r.message).toMatch(/^DACLI_SKILL_REQUIREMENTS points at gone\/capabilities\.json, which does not exist/)
    expect(r.details).toEqual({ requirements: 'gone/capabilities.json', source: 'DACLI_SKILL_REQUIREMENTS' })
  })
})

describe('18. verdict refusals through MCP carry a policy and next actions', () => {
  test('capabilities --require and version --compatibility, exit 3', async () => {
    const ws = await workspace()
    ws.write(
      'need.json',
      JSON.stringify({ schema_version: 1, required: [{ id: 'cli.command.task.teleport' }], optional: [] }),
    )
    const s = await session(ws.root)
    try {
      const caps = await s.call('cli', { schema_version: 1, argv: ['capabilities', '--require', 'nope.x'] })
      expect(caps.isError).toBeFalsy()
      const c = textJSON(caps)
      expect(c.refused.policy).toBe('missing-capability')
      expect(c.refused.reason).toMatch(/lacks 1 of the 1 required capability: nope\.x/)
      expect(c.refused.next[0]).toBe('dacli capabilities --json (the ids this binary has)')
      expect(c.report.missing).toEqual(['nope.x'])
      const ver = await s.call('cli', { schema_version: 1, argv: ['version', '--compatibility', 'need.json'] })
      const v = textJSON(ver)
      expect(v.refused.policy).toBe('incompatible-skill')
      expect(v.refused.reason).toMatch(/cli\.command\.task\.teleport \(not in this binary\)/)
      expect(v.refused.next[0]).toMatch(/^upgrade dacli \(this is .*\) to one that has cli\.command\.task\.teleport$/)
      expect(v.report.compatible).toBe(false)
    } finally {
      await s.close()
    }
    // People see the same next actions on stderr; the report stays on stdout.
    const h = (await ws.dacli('capabilities', '--require', 'nope.x')).expectExit(3)
    expect(h.stdout).toMatch(/missing 1 of 1/)
    expect(h.stderr).toMatch(/^Next actions:\n {2}dacli capabilities --json/)
  })
})

describe('20. the seed’s promises', () => {
  test('capabilities carry the prompt schema version, requirable like any id', async () => {
    const ws = await workspace()
    const c = (await ws.dacli('capabilities', '--json')).expectExit(0).json
    expectValid(c)
    expect(c.prompt_schemas).toEqual([{ id: 'prompt.context-brief', version: 1 }])
    ;(await ws.dacli('capabilities', '--require', 'prompt.context-brief')).expectExit(0)
  })

  test('COMPATIBILITY.md states the reader obligations and keeps dated migration notes, oldest first', () => {
    const text = fs.readFileSync(path.join(REPO_ROOT, 'COMPATIBILITY.md'), 'utf8')
    const reader = text.slice(text.indexOf('### What a reader must tolerate'))
    for (const v of ['`outcome`', '`kind`', '`code`', '`status`', '`policy`']) expect(reader).toContain(v)
    const notes = text.slice(text.indexOf('## 4. Migration notes'))
    expect(notes).toMatch(/Entries are never deleted/)
    const dates = [...notes.matchAll(/^### (\d{4}-\d{2}-\d{2}) — \S/gm)].map((m) => m[1] as string)
    expect(dates.length).toBeGreaterThanOrEqual(4)
    expect([...dates].sort()).toEqual(dates)
    // Every entry is a dated heading (no entries as dated bullets).
    expect(notes.split('\n').filter((l) => /^- \*\*\d{4}-/.test(l))).toEqual([])
  })
})
