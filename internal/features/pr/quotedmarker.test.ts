// Only the marker dacli writes identifies a task's pull request or issue: the last marker line of a pull request
// body, the first line of an issue body. A marker quoted in task text is written as visible text, and one quoted
// inside a body (an older dacli copied it as it was) names nothing: another task's pull request is never landed.

import * as fs from 'node:fs'
import * as path from 'node:path'
import { afterEach, expect, test } from 'vitest'
import { type DeliveryWorkspace, deliveryWorkspace, REPO } from '../../testkit/deliveryws.js'

let w: DeliveryWorkspace
afterEach(async () => {
  await w.close()
})

const wsIdOf = (root: string) =>
  (/^id: (\S+)$/m.exec(fs.readFileSync(path.join(root, '.dacli', 'config.yml'), 'utf8')) as RegExpExecArray)[1]

test('a marker quoted in another task’s text does not find its pull request; pr land refuses, nothing merged', async () => {
  w = await deliveryWorkspace()
  const victim = await w.task('Victim task')
  const id = (await w.ws.dacli('task', 'show', victim, '--json')).json.id as string
  const quoted = `<!-- dacli:${id} ws:${wsIdOf(w.ws.root)} -->`
  const other = (
    await w.ws.dacli(
      'task',
      'add',
      'Other work',
      '--project',
      'alpha',
      '--accept',
      `ported from the note ${quoted}`,
      '--context',
      quoted,
      '--force',
      '--json',
    )
  ).expectExit(0).json.ref as string
  const { dir } = await w.worktree(other)
  w.commit(dir, 'o.txt', 'o\n', 'other')
  const pr = (await w.run('pr', 'open', other, '--json')).expectExit(0).json.pr.number as number
  const body = w.gh.pull(REPO, pr).body as string
  expect(body).not.toContain(`<!-- dacli:${id}`)
  expect(body).toContain(`&lt;!-- dacli:${id}`)

  // A body an older dacli wrote, the quoted marker on a line of its own above the task's own.
  const legacy = w.gh.addPull(REPO, {
    title: 'Legacy',
    head: 'feature/legacy',
    body: `${quoted}\n\n- [ ] ported ${quoted}\n\n<!-- dacli:t-01JOTHERTASK000000000000000 ws:${wsIdOf(w.ws.root)} -->`,
  })
  const d = (await w.run('pr', 'diagnose', victim, '--json')).expectExit(0).json
  expect(d.code).toBe('no_pr')
  expect(JSON.stringify(d)).not.toContain(`#${pr}`)
  expect(JSON.stringify(d)).not.toContain(`#${legacy.number}`)

  ;(await w.ws.dacli('task', 'check', victim, '--all')).expectExit(0)
  const before = w.ws.snapshot()
  w.gh.resetCalls()
  const land = await w.run('pr', 'land', victim, '--json')
  expect(land.code).not.toBe(0)
  expect(w.gh.writes()).toEqual([])
  expect(w.ws.snapshot()).toEqual(before)
  expect(w.gh.pull(REPO, pr).merged).toBe(false)
  expect((await w.ws.dacli('task', 'show', victim, '--json')).json.status).toBe('open')
})

test('github push: a task whose issue is not there yet does not adopt another task’s issue quoting its marker', async () => {
  w = await deliveryWorkspace()
  const victim = await w.task('Victim task')
  const id = (await w.ws.dacli('task', 'show', victim, '--json')).json.id as string
  const quoted = `<!-- dacli:${id} ws:${wsIdOf(w.ws.root)} -->`
  const other = (
    await w.ws.dacli('task', 'add', 'Other work', '--project', 'alpha', '--accept', `see ${quoted}`, '--json')
  ).expectExit(0).json.ref as string
  ;(await w.run('github', 'push', 'alpha', other, '--json')).expectExit(0)
  // And one an older dacli wrote, the marker copied into its checklist as it was.
  w.gh.addIssue(REPO, { title: 'Legacy', body: `<!-- dacli:t-01JOTHERTASK000000000000000 ws:x -->\n- [ ] ${quoted}\n` })
  const issues = w.gh.repo(REPO).issues
  expect(issues[0]?.body).toContain(`&lt;!-- dacli:${id}`)
  const r = (await w.run('github', 'push', 'alpha', victim, '--json')).expectExit(0).json
  expect(JSON.stringify(r)).toContain('created')
  expect(w.gh.repo(REPO).issues).toHaveLength(3)
  const mine = (await w.ws.dacli('task', 'show', victim, '--json')).json.github.issue as number
  expect(mine).toBe(3)
  expect(w.gh.repo(REPO).issues[0]?.title).toBe('Other work')
})
