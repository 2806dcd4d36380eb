// A remote this clone names but cannot reach (its URL moved or gone) is an operational failure (exit 1), as for
// claims; only a remote of that name that is not configured at all is "no git remote" (exit 4).

import * as path from 'node:path'
import { beforeEach, describe, expect, test } from 'vitest'
import { originWithCode } from '../../testkit/coordination.js'
import { git, tempDir, type Workspace, workspace } from '../../testkit/ws.js'

let a: Workspace
let gone: string

beforeEach(async () => {
  a = await workspace()
  originWithCode(a)
  ;(await a.dacli('project', 'add', 'API', '--slug', 'api')).expectExit(0)
  ;(await a.dacli('record', 'push')).expectExit(0)
  gone = path.join(tempDir('dacli-gone-'), 'gone.git')
})

describe('record push, pull and sync with a remote that cannot be reached', () => {
  test('a configured remote whose URL is gone: exit 1 naming it, the workspace unchanged; an unknown name exit 4', async () => {
    git(a.root, 'remote', 'set-url', 'origin', gone)
    const before = a.snapshot()
    for (const command of ['push', 'pull', 'sync']) {
      const r = (await a.dacli('record', command, '--json')).expectExit(1)
      expect(r.error.message).toContain('origin')
      expect(r.error.message).not.toContain('no git remote')
      expect(r.error.details.remote).toBe('origin')
    }
    // A name no remote is configured under is still "no git remote" (exit 4).
    for (const command of ['push', 'pull', 'sync']) {
      const r = (await a.dacli('record', command, 'nowhere', '--json')).expectExit(4)
      expect(r.error.message).toContain('no git remote "nowhere"')
      expect(r.error.details.remote).toBe('nowhere')
    }
    expect(a.snapshot()).toEqual(before)
  })

  test('a URL or path that cannot be reached is git’s to judge: exit 1', async () => {
    for (const command of ['push', 'pull', 'sync']) (await a.dacli('record', command, gone, '--json')).expectExit(1)
  })
})

test('record push to a remote name git does not know: exit 4 before anything is recorded (no record commit, no ref moved)', async () => {
  const w = await workspace()
  ;(await w.dacli('project', 'add', 'API', '--slug', 'api')).expectExit(0)
  ;(await w.dacli('task', 'add', 'Unrecorded', '--project', 'api')).expectExit(0)
  const refs = git(w.root, 'for-each-ref', '--format=%(refname) %(objectname)')
  const before = w.snapshot()
  for (const remote of [[], ['nowhere']]) {
    const r = (await w.dacli('record', 'push', ...remote, '--json')).expectExit(4)
    expect(r.error.message).toMatch(/^no git remote "(origin|nowhere)"/)
  }
  expect(git(w.root, 'for-each-ref', '--format=%(refname) %(objectname)')).toBe(refs)
  expect(w.snapshot()).toEqual(before)
})
