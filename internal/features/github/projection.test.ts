// github projection against the loopback fake GitHub: each task's issue and pull request, what a push would
// change (drift), issues whose task is gone (orphans), done tasks counted unless --terminal, --include-internal;
// and never a write request, remote or local (the issue cache aside). Also over MCP as github_projection.

import * as fs from 'node:fs'
import * as path from 'node:path'
import { afterEach, describe, expect, test } from 'vitest'
import { type DeliveryWorkspace, deliveryWorkspace, REPO } from '../../testkit/deliveryws.js'
import { session } from '../../testkit/mcp.js'
import { expectValid } from '../../testkit/schemas.js'

let w: DeliveryWorkspace
afterEach(async () => {
  await w.close()
})

/** Every file under .dacli/ but the caches, for "nothing written". */
function files(root: string): Map<string, string> {
  const out = new Map<string, string>()
  const walk = (d: string) => {
    for (const e of fs.readdirSync(d, { withFileTypes: true })) {
      const p = path.join(d, e.name)
      const rel = path.relative(root, p)
      if (rel.startsWith('.dacli/cache') || rel.startsWith('.dacli/locks')) continue
      if (e.isDirectory()) walk(p)
      else out.set(rel, fs.readFileSync(p, 'latin1'))
    }
  }
  walk(path.join(root, '.dacli'))
  return out
}

describe('github projection', () => {
  test('tasks beside their issues and pull requests: in step, drifted, unpushed, gone; orphans; no write', async () => {
    w = await deliveryWorkspace()
    const steady = await w.task('Steady work')
    const edited = await w.task('Edited work')
    const finished = await w.task('Finished work')
    const lost = await w.task('Lost issue')
    ;(await w.run('github', 'push', 'alpha')).expectExit(0)
    const fresh = await w.task('Fresh work')
    ;(await w.ws.dacli('task', 'edit', edited, '--title', 'Edited work, renamed')).expectExit(0)
    ;(await w.ws.dacli('task', 'check', finished, '--all')).expectExit(0)
    ;(await w.ws.dacli('task', 'done', finished)).expectExit(0)
    ;(await w.run('github', 'push', 'alpha', finished)).expectExit(0)
    // The lost task's issue is deleted on GitHub; its block still records it.
    const lostIssue = (await w.ws.dacli('task', 'show', lost, '--json')).json.github.issue as number
    w.gh.repo(REPO).issues = w.gh.repo(REPO).issues.filter((i) => i.number !== lostIssue)
    // The steady task's branch has a pull request.
    const { dir, branch } = await w.worktree(steady)
    w.commit(dir, 'steady.txt', 'steady\n')
    w.push(dir, branch)
    const pull = w.gh.addPull(REPO, { title: 'Steady work', head: branch })
    // An issue carrying this workspace's marker for a task that does not exist.
    const wsId = /^id: (\S+)$/m.exec(w.ws.file('.dacli/config.yml'))?.[1] as string
    w.gh.addIssue(REPO, { title: 'A task long gone', body: `<!-- dacli:t-01AAAAAAAAAAAAAAAAAAAAAAAA ws:${wsId} -->\n` })

    const before = files(w.ws.root)
    w.gh.resetCalls()
    // --full: the issue cache still holds the deleted issue (an incremental listing never hears of a deletion).
    const doc = (await w.run('github', 'projection', 'alpha', '--full', '--json')).expectExit(0).json
    expectValid(doc)
    expect(w.gh.writes()).toEqual([])
    expect(files(w.ws.root)).toEqual(before)
    const by = Object.fromEntries(doc.items.map((i: { ref: string }) => [i.ref, i]))
    expect(Object.keys(by).sort()).toEqual([edited, fresh, lost, steady].sort())
    expect(by[steady]).toMatchObject({
      sync: 'in_sync',
      action: 'unchanged',
      issue: { state: 'open', found_by: 'block' },
      pr: { number: pull.number, state: 'open', found_by: 'branch' },
    })
    expect(by[edited]).toMatchObject({ sync: 'drift', action: 'update', changes: expect.arrayContaining(['title']) })
    expect(by[fresh]).toMatchObject({ sync: 'no_issue', action: 'create', issue: null, recorded_issue: null })
    expect(by[lost]).toMatchObject({ sync: 'issue_missing', action: 'create', recorded_issue: lostIssue })
    expect(by[steady].internal).toBeUndefined()
    expect(doc.counts).toEqual({ tasks: 5, in_sync: 2, drift: 1, create: 2, close: 0, with_pr: 1, terminal_hidden: 1 })
    expect(doc.orphans).toEqual([
      {
        issue_number: expect.any(Number),
        title: 'A task long gone',
        state: 'open',
        task_id: 't-01AAAAAAAAAAAAAAAAAAAAAAAA',
      },
    ])

    const all = (await w.run('github', 'projection', 'alpha', '--terminal', '--include-internal', '--json')).expectExit(
      0,
    ).json
    expectValid(all)
    const done = all.items.find((i: { ref: string }) => i.ref === finished)
    expect(done).toMatchObject({ status: 'done', sync: 'in_sync', issue: { state: 'closed' } })
    expect(done.internal).toMatchObject({ state: 'closed', marker: expect.stringContaining(`ws:${wsId}`) })
    expect(all.counts.terminal_hidden).toBe(0)
    const paged = (await w.run('github', 'projection', 'alpha', '--limit', '2', '--json')).expectExit(0).json
    expect(paged).toMatchObject({ total: 4, truncated: true, next_cursor: '2' })
    const pagedHuman = (await w.run('github', 'projection', 'alpha', '--limit', '2')).expectExit(0).stdout
    expect(pagedHuman).toContain('more: dacli github projection alpha --limit 2 --cursor 2')
    expect(w.gh.writes()).toEqual([])
    expect(files(w.ws.root)).toEqual(before)

    const human = (await w.run('github', 'projection', 'alpha')).expectExit(0)
    expect(human.stdout).toContain('1 drifted')
    expect(human.stdout).toContain('orphan: #')
  })

  test('an unlinked project is 2 before any request; over MCP the tool answers the document', async () => {
    w = await deliveryWorkspace()
    await w.task('Some work')
    ;(await w.ws.dacli('project', 'add', 'Beta', '--slug', 'beta')).expectExit(0)
    w.gh.resetCalls()
    const r = await w.run('github', 'projection', 'beta', '--json')
    expect(r.code).toBe(2)
    expect(w.gh.calls).toEqual([])
    const mcp = await session(w.ws.root, { env: w.gh.env() })
    try {
      const res = await mcp.call('github_projection', { schema_version: 1, project: 'alpha', terminal: true })
      expect(res.isError, JSON.stringify(res.content)).toBeFalsy()
      expect(res.structuredContent).toMatchObject({ schema: 'github-projection/v1', project: 'alpha', terminal: true })
      expectValid(res.structuredContent)
      expect(w.gh.writes()).toEqual([])
    } finally {
      await mcp.close()
    }
  })
})
