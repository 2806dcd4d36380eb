// Landed, not just done: real branches, real commits, real merges (system git).

import * as fs from 'node:fs'
import * as path from 'node:path'
import { beforeEach, describe, expect, test } from 'vitest'
import { dacliJson } from '../../testkit/schemas.js'
import { git, type RunOpts, tempDir, type Workspace, workspace } from '../../testkit/ws.js'

let ws: Workspace

beforeEach(async () => {
  ws = await workspace()
  git(ws.root, 'commit', '-q', '--allow-empty', '-m', 'init')
  ;(await ws.dacli('project', 'add', 'Ledger', '--slug', 'ledger')).expectExit(0)
  for (const t of ['Write the shim', 'Audit write paths', 'Tune the batch'])
    (await ws.dacli('task', 'add', t, '--project', 'ledger', '--accept', 'done right', '--force')).expectExit(0)
})

const j = (...args: (string | RunOpts)[]) => dacliJson(ws, ...args)

/** A commit on the worktree of a task (made with `dacli worktree add`). */
async function commitIn(ref: string, file: string, subject: string): Promise<{ dir: string; sha: string }> {
  const t = (await ws.dacli('task', 'show', ref, '--json')).json
  const dir = path.join(ws.root, t.worktree.path)
  fs.writeFileSync(path.join(dir, file), `${subject}\n`)
  git(dir, 'add', file)
  git(dir, 'commit', '-q', '-m', subject)
  return { dir, sha: git(dir, 'rev-parse', 'HEAD').trim() }
}

const logOf = async (ref: string) =>
  (await ws.dacli('task', 'show', ref, '--json')).json.log.map(
    (l: { verb: string; details: string }) => `${l.verb} ${l.details}`,
  )

describe('a task with a branch closes only when its commits are on trunk', () => {
  test('done: refused (3, unlanded) naming the missing commits, then closed once merged, logging landed <sha>', async () => {
    ;(await ws.dacli('worktree', 'add', 'ledger/1')).expectExit(0)
    const a = await commitIn('ledger/1', 'shim.txt', 'Add the shim')
    const b = await commitIn('ledger/1', 'shim2.txt', 'Cover the batch')
    ;(await ws.dacli('task', 'check', 'ledger/1', '--all')).expectExit(0)
    const before = ws.snapshot()
    const r = (await j('task', 'done', 'ledger/1')).expectExit(3)
    expect(r.error.details).toMatchObject({
      policy: 'unlanded',
      branch: 'dacli/ledger-001-write-the-shim',
      trunk: 'main',
      head: b.sha,
      missing: [
        { sha: a.sha, subject: 'Add the shim' },
        { sha: b.sha, subject: 'Cover the batch' },
      ],
    })
    expect(r.error.message).toMatch(/2 commits of dacli\/ledger-001-write-the-shim are not on main/)
    expect(ws.snapshot()).toEqual(before) // a refusal writes nothing
    // Half merged is still not landed.
    git(ws.root, 'merge', '-q', '--no-ff', a.sha, '-m', 'merge half')
    expect((await j('task', 'done', 'ledger/1')).expectExit(3).error.details.missing).toEqual([
      { sha: b.sha, subject: 'Cover the batch' },
    ])
    git(ws.root, 'merge', '-q', '--no-ff', 'dacli/ledger-001-write-the-shim', '-m', 'merge the shim')
    const ok = (await j('task', 'done', 'ledger/1', '--tokens', '5400')).expectExit(0).json
    expect(ok.task.status).toBe('done')
    expect(ok.details).toMatchObject({
      landing: { landed: true, head: b.sha, trunk: 'main', missing: [] },
      tokens: 5400,
    })
    const log = await logOf('ledger/1')
    expect(log.slice(-3)).toEqual([
      'done 1/1 criteria',
      `landed ${b.sha} (dacli/ledger-001-write-the-shim in main)`,
      'tokens output 5400',
    ])
  })

  test('--allow-unlanded closes anyway and logs it; a cherry-picked (rebased) commit counts as landed', async () => {
    ;(await ws.dacli('worktree', 'add', 'ledger/1')).expectExit(0)
    await commitIn('ledger/1', 'x.txt', 'Not merged yet')
    ;(await ws.dacli('task', 'check', 'ledger/1', '--all')).expectExit(0)
    const r = (await j('task', 'done', 'ledger/1', '--allow-unlanded')).expectExit(0).json
    expect(r.details.landing).toMatchObject({ landed: false, overridden: true })
    expect((await logOf('ledger/1')).at(-1)).toBe(
      'unlanded dacli/ledger-001-write-the-shim: 1 commit not on main (--allow-unlanded)',
    )
    // ledger/2's commit reaches main as a cherry-pick: a different sha, the same change.
    ;(await ws.dacli('worktree', 'add', 'ledger/2')).expectExit(0)
    const c = await commitIn('ledger/2', 'y.txt', 'Audit it')
    git(ws.root, 'cherry-pick', c.sha)
    ;(await ws.dacli('task', 'check', 'ledger/2', '--all')).expectExit(0)
    expect((await j('task', 'done', 'ledger/2')).expectExit(0).json.details.landing).toMatchObject({ landed: true })
  })

  test('a branch squash-merged into trunk has landed (its changes are there, not its commits); one commit more has not', async () => {
    ;(await ws.dacli('worktree', 'add', 'ledger/1')).expectExit(0)
    await commitIn('ledger/1', 'a.txt', 'First half')
    const { dir, sha } = await commitIn('ledger/1', 'b.txt', 'Second half')
    const branch = git(dir, 'rev-parse', '--abbrev-ref', 'HEAD').trim()
    git(ws.root, 'merge', '-q', '--squash', branch)
    git(ws.root, 'commit', '-q', '-m', 'The shim, squashed')
    ;(await ws.dacli('task', 'check', 'ledger/1', '--all')).expectExit(0)
    // Not one commit of the branch is on main, by sha or by patch: only their changes, together.
    expect(git(ws.root, 'cherry', 'main', branch).trim().split('\n')).toHaveLength(2)
    const more = await commitIn('ledger/1', 'c.txt', 'After the squash')
    const before = ws.snapshot()
    const refused = (await j('task', 'done', 'ledger/1')).expectExit(3)
    expect(refused.error.details.missing.map((m: { sha: string }) => m.sha)).toContain(more.sha)
    expect(ws.snapshot()).toEqual(before)
    git(dir, 'reset', '-q', '--hard', sha)
    expect((await j('task', 'done', 'ledger/1')).expectExit(0).json.details.landing).toMatchObject({ landed: true })
    expect((await logOf('ledger/1')).at(-1)).toBe(`landed ${sha} (${branch} in main)`)
  })

  test('--branch and --into: a task without a worktree, another trunk, names that resolve to nothing', async () => {
    git(ws.root, 'checkout', '-q', '-b', 'feature')
    fs.writeFileSync(path.join(ws.root, 'f.txt'), 'f\n')
    git(ws.root, 'add', 'f.txt')
    git(ws.root, 'commit', '-q', '-m', 'Feature work')
    git(ws.root, 'checkout', '-q', 'main')
    ;(await ws.dacli('task', 'check', 'ledger/3', '--all')).expectExit(0)
    const before = ws.snapshot()
    expect((await j('task', 'done', 'ledger/3', '--branch', 'feature')).expectExit(3).error.details).toMatchObject({
      branch: 'feature',
      trunk: 'main',
      missing: [{ subject: 'Feature work' }],
    })
    expect((await j('task', 'done', 'ledger/3', '--branch', 'nope')).code).toBe(4)
    expect((await j('task', 'done', 'ledger/3', '--branch', 'feature', '--into', 'nope')).code).toBe(4)
    expect((await j('task', 'done', 'ledger/3', '--into', 'main')).code).toBe(2) // --into without a branch
    expect((await j('task', 'done', 'ledger/3', '--branch', '--oops')).code).toBe(2)
    expect(ws.snapshot()).toEqual(before)
    const ok = (await j('task', 'done', 'ledger/3', '--branch', 'feature', '--into', 'feature')).expectExit(0).json
    expect(ok.details.landing).toMatchObject({ branch: 'feature', trunk: 'feature', landed: true })
  })

  test('without --into, trunk is the remote’s HEAD before main: landed there counts, merged only into main does not', async () => {
    // origin's default branch is `release`; the work is merged there, and main never sees it.
    const bare = path.join(tempDir('dacli-origin-'), 'origin.git')
    git(ws.root, 'init', '-q', '--bare', '-b', 'release', bare)
    git(ws.root, 'remote', 'add', 'origin', bare)
    git(ws.root, 'push', '-q', 'origin', 'main:release')
    git(ws.root, 'fetch', '-q', 'origin')
    git(ws.root, 'remote', 'set-head', 'origin', 'release')
    ;(await ws.dacli('worktree', 'add', 'ledger/1')).expectExit(0)
    const work = await commitIn('ledger/1', 'shim.txt', 'Add the shim')
    ;(await ws.dacli('task', 'check', 'ledger/1', '--all')).expectExit(0)
    // Merged into main only: main is not trunk while origin/HEAD names another branch.
    git(ws.root, 'merge', '-q', '--no-edit', 'dacli/ledger-001-write-the-shim')
    const before = ws.snapshot()
    const r = (await j('task', 'done', 'ledger/1')).expectExit(3)
    expect(r.error.details).toMatchObject({ policy: 'unlanded', trunk: 'origin/release', missing: [{ sha: work.sha }] })
    expect(ws.snapshot()).toEqual(before)
    // Landed on the remote's default branch: it closes, and the log names that trunk.
    git(ws.root, 'push', '-q', 'origin', 'dacli/ledger-001-write-the-shim:release')
    git(ws.root, 'fetch', '-q', 'origin')
    const ok = (await j('task', 'done', 'ledger/1')).expectExit(0).json
    expect(ok.details.landing).toMatchObject({ trunk: 'origin/release', landed: true })
    expect((await logOf('ledger/1')).at(-1)).toBe(
      `landed ${work.sha} (dacli/ledger-001-write-the-shim in origin/release)`,
    )
  })

  test('a deleted branch: landed when a merge on trunk names it, refused when nothing does; no trunk at all is refused', async () => {
    ;(await ws.dacli('worktree', 'add', 'ledger/1')).expectExit(0)
    await commitIn('ledger/1', 'a.txt', 'Work')
    git(
      ws.root,
      'merge',
      '-q',
      '--no-ff',
      'dacli/ledger-001-write-the-shim',
      '-m',
      "Merge branch 'dacli/ledger-001-write-the-shim'",
    )
    const wt = (await ws.dacli('task', 'show', 'ledger/1', '--json')).json.worktree.path
    git(ws.root, 'worktree', 'remove', path.join(ws.root, wt))
    git(ws.root, 'branch', '-D', 'dacli/ledger-001-write-the-shim')
    ;(await ws.dacli('task', 'check', 'ledger/1', '--all')).expectExit(0)
    const ok = (await j('task', 'done', 'ledger/1')).expectExit(0).json
    expect(ok.details.landing).toMatchObject({ landed: true, head: null })
    expect((await logOf('ledger/1')).at(-1)).toMatch(
      /^landed [0-9a-f]{40} \(dacli\/ledger-001-write-the-shim in main, merged as [0-9a-f]{40}\)$/,
    )
    // ledger/2's branch is deleted unmerged.
    ;(await ws.dacli('worktree', 'add', 'ledger/2')).expectExit(0)
    await commitIn('ledger/2', 'b.txt', 'Lost work')
    const wt2 = (await ws.dacli('task', 'show', 'ledger/2', '--json')).json.worktree.path
    git(ws.root, 'worktree', 'remove', path.join(ws.root, wt2))
    git(ws.root, 'branch', '-D', 'dacli/ledger-002-audit-write-paths')
    ;(await ws.dacli('task', 'check', 'ledger/2', '--all')).expectExit(0)
    const r = (await j('task', 'done', 'ledger/2')).expectExit(3)
    expect(r.error.message).toMatch(/no longer exists/)
    // A repository whose trunk is neither origin/HEAD, main nor master.
    git(ws.root, 'branch', '-m', 'main', 'trunk')
    ;(await ws.dacli('task', 'check', 'ledger/3', '--all')).expectExit(0)
    const none = (await j('task', 'done', 'ledger/3', '--branch', 'trunk')).expectExit(3)
    expect(none.error.details).toMatchObject({ policy: 'unlanded', trunk: null })
    expect(none.error.next_actions[0]).toMatch(/--into/)
  })

  test('a worktree removed while its branch is unlanded (--force, by git, pruned) keeps the branch: done still checks it', async () => {
    const task = (ref: string) => ws.file(`.dacli/projects/ledger/tasks/open/${ref}.md`)
    // dacli worktree remove --force keeps the unmerged branch; the task keeps its name as branch:.
    ;(await ws.dacli('worktree', 'add', 'ledger/1')).expectExit(0)
    const a = await commitIn('ledger/1', 'a.txt', 'Unmerged work')
    expect((await j('worktree', 'remove', 'ledger/1', '--force')).expectExit(0).json.branch_deleted).toBe(false)
    expect(task('001-write-the-shim')).toContain('\nbranch: dacli/ledger-001-write-the-shim\n')
    expect(task('001-write-the-shim')).not.toContain('\nworktree:')
    ;(await ws.dacli('task', 'check', 'ledger/1', '--all')).expectExit(0)
    const before = ws.snapshot()
    const r = (await j('task', 'done', 'ledger/1')).expectExit(3)
    expect(r.error.details).toMatchObject({
      policy: 'unlanded',
      branch: 'dacli/ledger-001-write-the-shim',
      head: a.sha,
    })
    expect(ws.snapshot()).toEqual(before)
    // Adding the worktree again checks the kept branch out; the task names it as its worktree's again.
    const again = (await j('worktree', 'add', 'ledger/1')).expectExit(0).json
    expect(again).toMatchObject({ branch: 'dacli/ledger-001-write-the-shim', head: a.sha })
    expect(ws.file('.dacli/projects/ledger/tasks/open/001-write-the-shim.md')).not.toContain('\nbranch:')
    // Removed by git itself, then forgotten by dacli worktree remove; its folder deleted by hand, then pruned.
    const others: [string, string][] = [
      ['ledger/2', '002-audit-write-paths'],
      ['ledger/3', '003-tune-the-batch'],
    ]
    for (const [ref, file] of others) {
      ;(await ws.dacli('worktree', 'add', ref)).expectExit(0)
      const wt = (await ws.dacli('task', 'show', ref, '--json')).json.worktree.path
      await commitIn(ref, 'b.txt', 'More unmerged work')
      if (ref === 'ledger/2') {
        git(ws.root, 'worktree', 'remove', '--force', path.join(ws.root, wt))
        ;(await ws.dacli('worktree', 'remove', ref)).expectExit(0)
      } else {
        fs.rmSync(path.join(ws.root, wt), { recursive: true })
        ;(await ws.dacli('worktree', 'prune')).expectExit(0)
      }
      expect(task(file)).toContain(`\nbranch: dacli/ledger-${file}\n`)
      ;(await ws.dacli('task', 'check', ref, '--all')).expectExit(0)
      expect((await j('task', 'done', ref)).expectExit(3).error.details.policy).toBe('unlanded')
    }
    // Merged by plain git: the close goes through and logs it.
    git(ws.root, 'merge', '-q', '--no-ff', 'dacli/ledger-002-audit-write-paths', '-m', 'merge 2')
    expect((await j('task', 'done', 'ledger/2')).expectExit(0).json.details.landing).toMatchObject({ landed: true })
  })

  test('the task’s branch is read as a branch: a tag of the same name on trunk does not make it landed', async () => {
    ;(await ws.dacli('worktree', 'add', 'ledger/1')).expectExit(0)
    const a = await commitIn('ledger/1', 'a.txt', 'Unmerged work')
    git(ws.root, 'tag', 'dacli/ledger-001-write-the-shim', 'main')
    ;(await ws.dacli('task', 'check', 'ledger/1', '--all')).expectExit(0)
    const r = (await j('task', 'done', 'ledger/1')).expectExit(3)
    expect(r.error.details).toMatchObject({ policy: 'unlanded', head: a.sha })
  })

  test('a worktree branch renamed by git is still the worktree’s branch: refused naming it, closed once merged', async () => {
    ;(await ws.dacli('worktree', 'add', 'ledger/1')).expectExit(0)
    const a = await commitIn('ledger/1', 'a.txt', 'Renamed work')
    git(a.dir, 'branch', '-m', 'feat/shim')
    ;(await ws.dacli('task', 'check', 'ledger/1', '--all')).expectExit(0)
    const r = (await j('task', 'done', 'ledger/1')).expectExit(3)
    expect(r.error.details).toMatchObject({ branch: 'feat/shim', head: a.sha, missing: [{ sha: a.sha }] })
    git(ws.root, 'merge', '-q', '--no-ff', 'feat/shim', '-m', "Merge branch 'feat/shim'")
    const ok = (await j('task', 'done', 'ledger/1')).expectExit(0).json
    expect(ok.details.landing).toMatchObject({ branch: 'feat/shim', landed: true, head: a.sha })
  })

  test('accept refuses an unlanded task before running --verify; sync keeps a close proposal pending until it lands', async () => {
    ;(await ws.dacli('worktree', 'add', 'ledger/1')).expectExit(0)
    await commitIn('ledger/1', 'a.txt', 'Work')
    const marker = path.join(ws.root, 'verify-ran')
    const r = (await j('accept', 'ledger/1', '--verify', `touch ${marker}`)).expectExit(3)
    expect(r.error.details.policy).toBe('unlanded')
    expect(fs.existsSync(marker)).toBe(false)
    // A read-only agent's done becomes a proposal; sync applies it only once the branch has landed.
    const ro = await ws.agent('ro', 'reader')
    ;(await ws.dacli('task', 'check', 'ledger/1', '--all')).expectExit(0)
    const p = (await j('task', 'done', 'ledger/1', '--tokens', '900', { as: ro.token })).expectExit(0).json
    const s = (await j('sync')).json
    expect(s.pending).toEqual([
      expect.objectContaining({
        event_id: p.event_id,
        never_applies: false,
        reason: expect.stringMatching(/has not landed/),
      }),
    ])
    git(ws.root, 'merge', '-q', '--no-ff', 'dacli/ledger-001-write-the-shim', '-m', 'merge')
    expect((await j('sync')).json.applied).toEqual([p.event_id])
    const log = await logOf('ledger/1')
    expect(log.some((l: string) => l.startsWith('landed '))).toBe(true)
    expect(log).toContain('tokens output 900')
    // accept with a landed branch reports it.
    ;(await ws.dacli('worktree', 'add', 'ledger/2')).expectExit(0)
    await commitIn('ledger/2', 'b.txt', 'More')
    git(ws.root, 'merge', '-q', '--no-ff', 'dacli/ledger-002-audit-write-paths', '-m', 'merge 2')
    const a = (await j('accept', 'ledger/2', '--verify', 'true', '--tokens', '300')).expectExit(0).json
    expect(a.tasks[0].landing).toMatchObject({ landed: true, branch: 'dacli/ledger-002-audit-write-paths' })
    expect((await logOf('ledger/2')).slice(-2)).toEqual([
      expect.stringMatching(/^landed [0-9a-f]{40} \(dacli\/ledger-002-audit-write-paths in main\)$/),
      'tokens output 300',
    ])
    expect((await j('accept', '--all', '--branch', 'x')).code).toBe(2)
  })
})
