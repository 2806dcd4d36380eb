// cleanup never takes a finished worktree that holds ignored files: `git worktree remove` deletes them, and the
// restore artifact (refs and branches) could not give them back.

import * as fs from 'node:fs'
import * as path from 'node:path'
import { expect, test } from 'vitest'
import { finishedWorktree } from '../../testkit/deliveryws.js'
import { workspace } from '../../testkit/ws.js'

test('a done task worktree with an ignored file is not a candidate; without it, it is', async () => {
  const ws = await workspace()
  const { dir } = await finishedWorktree(ws, '.gitignore', 'secret.env\n')
  fs.writeFileSync(path.join(dir, 'secret.env'), 'TOKEN=1\n')
  const kinds = async () =>
    (await ws.dacli('cleanup', '--json')).expectExit(0).json.candidates.map((c: { kind: string }) => c.kind)
  expect(await kinds()).not.toContain('finished_worktree')
  fs.rmSync(path.join(dir, 'secret.env'))
  expect(await kinds()).toContain('finished_worktree')
})
