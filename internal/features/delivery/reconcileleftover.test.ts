// reconcile's fix for a branch without a task must be one that works: cleanup never lists such a branch (it takes
// done tasks' branches only), so the fix names the git command, not cleanup.

import { expect, test } from 'vitest'
import { git, workspace } from '../../testkit/ws.js'

test('a merged branch without a task: the fix does not send the caller to cleanup, which does not list it', async () => {
  const ws = await workspace()
  git(ws.root, 'commit', '-q', '--allow-empty', '-m', 'init')
  await ws.ok('project', 'add', 'a')
  git(ws.root, 'branch', 'dacli/a-007-gone')
  const r = (await ws.dacli('reconcile', '--json')).expectExit(0).json
  const f = r.findings.find((x: { class: string }) => x.class === 'branch_without_task')
  expect(f.subject).toBe('dacli/a-007-gone')
  const c = (await ws.dacli('cleanup', '--json')).expectExit(0).json
  expect(c.candidates.map((x: { subject: string }) => x.subject)).not.toContain('refs/heads/dacli/a-007-gone')
  expect(f.fix).not.toContain('cleanup')
  expect(f.fix).toContain('git branch -D dacli/a-007-gone')
})
