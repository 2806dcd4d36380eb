// The loop's commands through MCP: reachable with the `cli` tool, listed
// in capabilities, beside the 27 Tier-1 tools (ask and answer among them). (metrics has its own:
// internal/features/metrics/mcp.test.ts.)

import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { session, textJSON } from '../testkit/mcp.js'
import { expectValid } from '../testkit/schemas.js'
import { dacliIn, type Fixture, fixture, git } from '../testkit/ws.js'
import { TIER1 } from './tools.js'

let fx: Fixture
let root: string
let mcp: Awaited<ReturnType<typeof session>>
beforeAll(async () => {
  fx = await fixture()
  root = fx.copy()
  mcp = await session(root)
})
afterAll(async () => {
  await mcp.close()
})

const cli = async (...argv: string[]) => {
  const r = await mcp.call('cli', { schema_version: 1, argv })
  expect(r.isError, JSON.stringify(r.content)).toBeFalsy()
  const doc = r.structuredContent as any
  expect(textJSON(r)).toEqual(doc)
  expectValid(doc)
  return doc
}

describe('the loop through the MCP cli tool', () => {
  test('ask → threads → answer → events dismiss, each its own document', async () => {
    const q = await cli('ask', 'Which port?', '--about', 'alpha/4')
    expect(q).toMatchObject({ schema: 'question/v1', task: { status: 'blocked' } })
    expect((await cli('threads', '--open')).threads.map((t: { id: string }) => t.id)).toContain(q.id)
    const a = await cli('answer', q.id, '8080')
    expect(a).toMatchObject({ schema: 'answer/v1', task: { unblocked: true } })
    const q2 = await cli('ask', 'Still?', '--about', 'alpha/4')
    const d = await cli('events', 'dismiss', q2.id, '--reason', 'not any more')
    expect(d).toMatchObject({ schema: 'event-dismiss/v1', outcome: 'dismissed' })
  })

  test('explain and watch: the documents the commands print; watch needs --timeout where nothing can interrupt it', async () => {
    const start = (await cli('watch', '--json', '--timeout', '0')).cursor
    const q = await cli('ask', 'Which schema?', '--about', 'alpha/1', '--need', 'the column names')
    const w = await cli('watch', '--json', '--since', start, '--timeout', '0')
    expect(w).toMatchObject({ schema: 'watch-event-list/v1', since: start, ended: 'timeout' })
    expect(w.events.map((e: { kind: string }) => e.kind)).toEqual(['question.asked', 'task.moved'])
    expect(w.events[1]).toMatchObject({ ref: 'alpha/001-first-thing', from: 'open', to: 'blocked' })
    // Nothing more after the cursor it returned.
    expect((await cli('watch', '--json', '--since', w.cursor, '--timeout', '0')).events).toEqual([])

    const e = await cli('explain', 'alpha/1')
    expect(e).toMatchObject({
      schema: 'progress-explain/v1',
      status: { value: 'blocked', blocked_by: q.id, blocked_by_kind: 'question' },
      questions: { open: [{ id: q.id, need: 'the column names', blocks: true }] },
      next_action: { command: `dacli answer ${q.id} "<answer>"`, who: 'person' },
    })
    // The same document as the command line (when it was read aside).
    const shell = (await dacliIn(root, ['explain', 'alpha/1', '--json'])).expectExit(0).json
    const undated = (d: any) => JSON.parse(JSON.stringify(d).replace(/"observed_at":"[^"]*"/g, '"observed_at":""'))
    expect(undated(e)).toEqual(undated(shell))
    expect((await cli('answer', q.id, 'snake_case')).task).toMatchObject({ unblocked: true, status: 'open' })
    expect((await cli('explain', 'alpha/1')).next_action.command).toBe('dacli task claim alpha/001-first-thing')

    const endless = await mcp.call('cli', { schema_version: 1, argv: ['watch', '--json'] })
    expect(endless.isError).toBe(true)
    expect(JSON.stringify(endless.content)).toMatch(/--timeout/)
  })

  test('landed, not just done: an unlanded close is a refusal naming the missing commits; on trunk it closes', async () => {
    git(root, 'commit', '-q', '--allow-empty', '-m', 'base')
    git(root, 'checkout', '-q', '-b', 'feature')
    git(root, 'commit', '-q', '--allow-empty', '-m', 'the work')
    const work = git(root, 'rev-parse', 'HEAD').trim()
    git(root, 'checkout', '-q', 'main')
    const r = await mcp.call('cli', { schema_version: 1, argv: ['task', 'done', 'alpha/4', '--branch', 'feature'] })
    expect(r.isError).toBeFalsy()
    const refused = (r.structuredContent as any).refused
    expect(refused).toMatchObject({ policy: 'unlanded' })
    expect(refused.details).toMatchObject({
      branch: 'feature',
      trunk: 'main',
      missing: [{ sha: work, subject: 'the work' }],
    })
    expect((await cli('task', 'show', 'alpha/4')).status).toBe('open')
    // It landed on release: --into names that trunk, and the close logs where it landed.
    git(root, 'branch', 'release', 'feature')
    const done = await cli('task', 'done', 'alpha/4', '--branch', 'feature', '--into', 'release', '--tokens', '900')
    expect(done).toMatchObject({ schema: 'task-change/v1', outcome: 'changed', task: { status: 'done' } })
    const log = (await cli('task', 'show', 'alpha/4')).log.map(
      (l: { verb: string; details: string }) => `${l.verb} ${l.details}`,
    )
    expect(log).toContain(`landed ${work} (feature in release)`)
    expect(log).toContain('tokens output 900')
  })

  test('capabilities lists the loop commands; the Tier-1 tools are the 33', async () => {
    expect(TIER1).toHaveLength(33)
    const caps = await cli('capabilities')
    const paths = caps.commands.map((c: { path: string }) => c.path)
    for (const p of ['ask', 'answer', 'threads', 'events dismiss', 'explain', 'watch', 'metrics'])
      expect(paths).toContain(p)
    const flags = caps.commands.flatMap((c: { flags: { id: string }[] }) => c.flags.map((f) => f.id))
    for (const f of [
      'cli.command.task.done.flag.into',
      'cli.command.task.done.flag.branch',
      'cli.command.task.done.flag.allow-unlanded',
      'cli.command.task.done.flag.tokens',
      'cli.command.accept.flag.into',
      'cli.command.accept.flag.allow-unlanded',
      'cli.command.explain.flag.fetch',
      'cli.command.watch.flag.since',
      'cli.command.watch.flag.jsonl',
    ])
      expect(flags).toContain(f)
    const docs = caps.json_schemas.map((d: { id: string }) => d.id)
    for (const d of [
      'question/v1',
      'answer/v1',
      'thread-list/v1',
      'event-dismiss/v1',
      'progress-explain/v1',
      'watch-event/v1',
      'watch-event-list/v1',
      'metrics/v1',
    ])
      expect(docs).toContain(d)
    const tools = (await mcp.tools()).map((t) => t.name)
    expect(tools).toHaveLength(34)
    expect(tools).toContain('cli')
  })
})
