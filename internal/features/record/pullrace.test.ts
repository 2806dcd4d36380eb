// record pull and concurrent writers: the pull writes under the
// per-task locks and re-reads under them, so a claim landing during it survives.
// The full count runs in `npm run stress`.

import * as fs from 'node:fs'
import * as path from 'node:path'
import { expect, test } from 'vitest'
import { nodeSystem } from '../../../cmd/system.js'
import { acquireLock } from '../../store/lock.js'
import { originWithCode, pullClaimRace, pulledClone } from '../../testkit/coordination.js'
import { git, spawnBin, workspace } from '../../testkit/ws.js'

test('a task claim racing a record pull of a diverged record is never lost', { timeout: 120_000 }, async () => {
  const f = await pullClaimRace(await workspace(), 6)
  expect(f.claims_failed).toBe(0)
  expect(f.claims_lost).toBe(0)
  expect(String(f.pull_exit_codes)).toMatch(/^(0×\d+)? ?(5×\d+)?$/)
})

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms))

test('record pull waits for a task’s lock and re-reads the file under it: a write made meanwhile survives', {
  timeout: 120_000,
}, async () => {
  // The race above hits the window only by chance; here a writer holds the task's lock for certain.
  const a = await workspace()
  const remote = originWithCode(a)
  ;(await a.dacli('project', 'add', 'Race', '--slug', 'race')).expectExit(0)
  const id = (await a.dacli('task', 'add', 'Pulled', '--project', 'race', '--accept', 'x', '--json')).expectExit(0).json
    .id as string
  ;(await a.dacli('record', 'push')).expectExit(0)
  const b = await pulledClone(remote)
  ;(await b.dacli('project', 'add', 'Local', '--slug', 'local')).expectExit(0)
  ;(await b.dacli('record')).expectExit(0)
  ;(await a.dacli('task', 'edit', 'race/1', '--context', 'changed in the other clone')).expectExit(0)
  ;(await a.dacli('record', 'push')).expectExit(0)
  const theirs = git(remote, 'rev-parse', 'dacli/record').trim()

  const file = path.join(b.root, '.dacli/projects/race/tasks/open/001-pulled.md')
  const before = fs.readFileSync(file, 'utf8')
  const lock = await acquireLock(path.join(b.root, '.dacli', 'locks'), `task-${id}`, { system: nodeSystem })
  let finished = false
  const pull = spawnBin(['record', 'pull', '--json'], { cwd: b.root, env: { DACLI_LOCK_WAIT_MS: '60000' } }).then(
    (r) => {
      finished = true
      return r
    },
  )
  try {
    // Once the pull has fetched, it has all it needs to write the task — except the lock this test holds.
    const tracking = () => {
      try {
        return git(b.root, 'rev-parse', '--verify', '-q', 'refs/remotes/origin/dacli/record').trim()
      } catch {
        return ''
      }
    }
    for (let i = 0; i < 600 && tracking() !== theirs && !finished; i++) await sleep(50)
    await sleep(1_000)
    expect(finished).toBe(false)
    expect(fs.readFileSync(file, 'utf8')).toBe(before)
    // The holder writes (as a claim would), then lets go.
    const mine = before.replace('\n## Log\n', '\n## Context\n\nclaimed here while the pull waited\n\n## Log\n')
    expect(mine).not.toBe(before)
    fs.writeFileSync(file, mine)
  } finally {
    lock.release()
  }
  const r = await pull
  // Both sides changed the same section: a decision (5). The task keeps theirs for now and the question holds
  // ours, word for word — what was written here while the pull waited is never lost.
  expect(r.code).toBe(5)
  const [d] = r.error.details.decisions
  expect(d).toMatchObject({ field: 'section:Context' })
  expect(d.ours).toContain('claimed here while the pull waited')
  const q = (await b.dacli('threads', '--open', '--json')).expectExit(0).json.threads[0]
  expect(q.question).toContain('claimed here while the pull waited')
  ;(await b.dacli('answer', d.question, 'ours')).expectExit(0)
  expect(fs.readFileSync(path.join(b.root, '.dacli/projects/race/tasks/open/001-pulled.md'), 'utf8')).toContain(
    'claimed here while the pull waited',
  )
})
