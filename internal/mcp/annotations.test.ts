// A tool's annotations say what its calls can do, in MCP's words (mcp.md: readOnlyHint = the command does not
// mutate; destructiveHint for removals; idempotentHint where a repeat is `unchanged`), whoever calls it. Shown on the
// bytes on disk: a tool that can take something away is not marked destructiveHint false, and one whose repeat can
// write again is not marked idempotentHint true.

import * as fs from 'node:fs'
import * as path from 'node:path'
import { beforeAll, describe, expect, test } from 'vitest'
import { session } from '../testkit/mcp.js'
import { type Fixture, fixture, snapshotOf, table } from '../testkit/ws.js'
import { buildToolset } from './call.js'

let fx: Fixture
beforeAll(async () => {
  fx = await fixture()
})

const annotations = (tool: string) => {
  const t = buildToolset(table, 'full').tools.find((x) => x.name === tool)
  if (t === undefined) throw new Error(`no tool ${tool}`)
  return t.definition.annotations ?? {}
}

/** The files under .dacli/events/ (each one a recorded event). */
const eventFiles = (root: string) => [...snapshotOf(root).keys()].filter((k) => k.includes(`events${path.sep}`))

describe('destructiveHint: a tool that can remove something does not say it only adds', () => {
  test('add_dependency takes `remove`: the dependency is gone from the task file', async () => {
    const root = fx.copy()
    const mcp = await session(root)
    try {
      const file = path.join(root, '.dacli', 'projects', 'alpha', 'tasks', 'open', '002-second-thing.md')
      expect(fs.readFileSync(file, 'utf8')).toMatch(/depends_on:/)
      const r = await mcp.call('add_dependency', { schema_version: 1, ref: 'alpha/2', remove: ['alpha/1'] })
      expect(r.isError).toBeFalsy()
      expect((r.structuredContent as any).outcome).toBe('changed')
      expect(fs.readFileSync(file, 'utf8')).not.toMatch(/on: t-/)
    } finally {
      await mcp.close()
    }
    expect(annotations('add_dependency').destructiveHint).not.toBe(false)
  })

  test.each([
    // Each one's removal is shown by the named test.
    ['reconcile_delivery', "deletes a done task's claim ref on the remote (delivery/reconcileclaims.test.ts)"],
    ['reconcile_event_journal', 'moves events out of the journal (events/reconcile.test.ts)'],
    ['cleanup_repository', 'removes branches, worktrees, refs and files (delivery/cleanup*.test.ts)'],
    ['run_shortcut', 'runs any command of the table as a step, removals included (shortcut/load.ts: NOT_A_STEP)'],
  ])('%s %s', (tool) => {
    expect(annotations(tool).readOnlyHint).not.toBe(true)
    expect(annotations(tool).destructiveHint).not.toBe(false)
  })
})

describe('idempotentHint: only where a repeat is unchanged, whoever calls', () => {
  test.each([
    ['claim_task', { ref: 'alpha/1' }],
    ['finish_task', { ref: 'alpha/1' }],
    ['accept_task', { ref: 'alpha/1' }],
    ['release_task', { ref: 'alpha/3' }],
  ])('%s by a read-only identity, repeated, records a second proposal', async (tool, args) => {
    const root = fx.copy()
    const mcp = await session(root, { as: fx.ro.token })
    try {
      const before = eventFiles(root).length
      for (const _ of [1, 2]) {
        const r = await mcp.call(tool, { schema_version: 1, ...args })
        expect(r.isError, JSON.stringify(r)).toBeFalsy()
        expect(JSON.stringify(r.structuredContent)).toMatch(/"proposed"|"proposals?"/)
      }
      expect(eventFiles(root).length).toBe(before + 2)
    } finally {
      await mcp.close()
    }
    expect(annotations(tool).idempotentHint).not.toBe(true)
  })

  test('check_task repeated by its owner is unchanged, the file as it was: idempotentHint', async () => {
    const root = fx.copy()
    const mcp = await session(root, { as: fx.rw.token })
    try {
      const first = await mcp.call('check_task', { schema_version: 1, ref: 'alpha/3', all: true })
      expect((first.structuredContent as any).outcome).toBe('changed')
      const after = snapshotOf(root)
      const again = await mcp.call('check_task', { schema_version: 1, ref: 'alpha/3', all: true })
      expect((again.structuredContent as any).outcome).toBe('unchanged')
      expect(snapshotOf(root)).toEqual(after)
    } finally {
      await mcp.close()
    }
    expect(annotations('check_task').idempotentHint).toBe(true)
  })
})
