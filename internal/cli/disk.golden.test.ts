// The bytes on disk after every mutating command (issue 12, item 9). JSON comparisons once hid a stray
// `flow: true` written into every claimed task file; these goldens compare the files themselves.
// One workspace, a fixed clock, each command's changed files under .dacli/ (cache and locks aside)
// written to testdata/disk/<command>.txt; ids, tokens and random suffixes are replaced by stable
// placeholders in order of appearance. Regenerate with UPDATE_GOLDEN=1 and review the diff.

import * as fs from 'node:fs'
import * as path from 'node:path'
import { describe, expect, test } from 'vitest'
import { FakeGitHub } from '../testkit/fakegithub.js'
import { expectGolden, expectOnlyGoldens } from '../testkit/golden.js'
import { dacliIn, git, REPO_ROOT, type RunOpts, table, tempDir } from '../testkit/ws.js'

const GOLDEN = path.join(REPO_ROOT, 'testdata', 'disk')
const NOW = new Date('2026-01-02T03:04:05Z')

/** Stable names for everything random: ULIDs, token hashes, agent discriminators, the workspace folder. */
class Normalizer {
  private seen = new Map<string, string>()
  private name(kind: string, v: string): string {
    let n = this.seen.get(v)
    if (n === undefined) {
      n = `<${kind}-${[...this.seen.values()].filter((x) => x.startsWith(`<${kind}-`)).length + 1}>`
      this.seen.set(v, n)
    }
    return n
  }
  text(s: string): string {
    return s
      .replace(/sha256:[0-9a-f]{64}/g, (m) => this.name('hash', m))
      .replace(/ed25519:[A-Za-z0-9_-]{80,}/g, (m) => this.name('signature', m))
      .replace(/ed25519:[A-Za-z0-9_-]{40,}/g, (m) => this.name('key', m))
      .replace(/\b[0-9a-f]{16}\.pub\b/g, (m) => this.name('fingerprint', m))
      .replace(/http:\/\/127\.0\.0\.1:\d+/g, 'http://127.0.0.1:<port>')
      .replace(/\b[0-9A-HJKMNP-TV-Z]{26}\b/g, (m) => this.name('ulid', m))
      .replace(/\ba-([a-z0-9-]+?)-([a-z0-9]{6})\b/g, (m) => (m === 'a-root' ? m : this.name('agent', m)))
  }
}

type Step = [name: string, argv: string[], opts?: RunOpts]

/** Every file under .dacli/ (caches, locks, the journal and worktree checkouts aside) as UTF-8 text. */
function filesOf(root: string): Map<string, string> {
  const m = new Map<string, string>()
  const walk = (d: string) => {
    for (const e of fs.readdirSync(d, { withFileTypes: true })) {
      const p = path.join(d, e.name)
      const rel = path.relative(root, p).split(path.sep).join('/')
      // Caches, locks and the change journal (an append-only log with its own tests) are not object files.
      if (['.dacli/cache', '.dacli/locks', '.dacli/journal', '.dacli/worktrees'].includes(rel)) continue
      if (e.isDirectory()) walk(p)
      else m.set(rel, fs.readFileSync(p, 'utf8'))
    }
  }
  if (fs.existsSync(path.join(root, '.dacli'))) walk(path.join(root, '.dacli'))
  return m
}

describe('the bytes on disk after every mutating command', () => {
  test('each command writes exactly its golden bytes (no stray keys, flow maps where dacli writes them)', async () => {
    const gh = await FakeGitHub.start()
    gh.addRepo('acme/widgets', 'private')
    const root = tempDir()
    git(root, 'init', '-q', '-b', 'main')
    git(root, 'commit', '-q', '--allow-empty', '-m', 'the code') // worktree add needs a commit to branch from
    const norm = new Normalizer()
    const run = async (argv: string[], o: RunOpts = {}) => {
      const r = await dacliIn(root, argv, { now: NOW, ...o })
      if (r.code !== 0) throw new Error(`dacli ${argv.join(' ')}: exit ${r.code}\n${r.stderr}`)
      return r
    }
    const tokens: Record<string, string> = {}
    const spawn = async (role: string, grant: string) => {
      const r = await run(['agent', 'spawn', '--role', role, '--grant', grant, '--json'])
      tokens[role] = r.json.token
      return r
    }
    const steps: (Step | [name: string, fn: () => Promise<unknown>])[] = [
      ['init', ['init', '--name', 'golden']],
      ['project_add', ['project', 'add', 'Ledger', '--slug', 'ledger', '--goal', 'books that balance']],
      [
        'task_add',
        [
          'task',
          'add',
          'Add the write shim',
          '--project',
          'ledger',
          '--accept',
          'shim covers the batch path',
          '--accept',
          'suite green',
          '--estimate',
          '1,2,4',
          '--priority',
          'must',
        ],
      ],
      ['task_add_dependent', ['task', 'add', 'Reconcile', '--project', 'ledger', '--depends-on', '1', '--accept', 'x']],
      ['agent_spawn', () => spawn('worker', 'rw')],
      ['agent_spawn_ro', () => spawn('reader', 'ro')],
      ['task_claim', () => run(['task', 'claim', 'ledger/1'], { as: tokens.worker as string })],
      ['task_renew', () => run(['task', 'renew', 'ledger/1', '--lease', '4h'], { as: tokens.worker as string })],
      [
        'task_edit_estimate',
        () => run(['task', 'edit', 'ledger/1', '--estimate', '2,3,5'], { as: tokens.worker as string }),
      ],
      [
        'task_edit_fields',
        () =>
          run(
            [
              'task',
              'edit',
              'ledger/1',
              '--priority',
              'should',
              '--so-that',
              'month end agrees',
              '--title',
              'Add the shim',
            ],
            { as: tokens.worker as string },
          ),
      ],
      ['task_check', () => run(['task', 'check', 'ledger/1', '--n', '1'], { as: tokens.worker as string })],
      ['task_uncheck', () => run(['task', 'uncheck', 'ledger/1', '--n', '1'], { as: tokens.worker as string })],
      ['task_release', () => run(['task', 'release', 'ledger/1'], { as: tokens.worker as string })],
      ['task_depend', ['task', 'depend', 'ledger/2', '--add', 'ledger/1:SS']],
      ['task_block', ['task', 'block', 'ledger/2', '--why', 'waiting on the bank']],
      ['task_unblock', ['task', 'unblock', 'ledger/2']],
      ['proposal_claim', () => run(['task', 'claim', 'ledger/2'], { as: tokens.reader as string })],
      ['sync', ['sync']],
      ['task_check_all', ['task', 'check', 'ledger/1', '--all']],
      ['task_done', ['task', 'done', 'ledger/1']],
      ['task_reopen', ['task', 'reopen', 'ledger/1', '--reason', 'the suite flaked']],
      ['accept', ['accept', 'ledger/1']],
      ['task_rm', ['task', 'add', 'Scratch', '--project', 'ledger', '--accept', 'x']],
      ['task_rm', ['task', 'rm', 'ledger/3']],
      [
        'note_add_decision',
        [
          'note',
          'add',
          'decision',
          'Use a shim',
          '--project',
          'ledger',
          '--rejected',
          'a rewrite',
          '--because',
          'smaller',
        ],
      ],
      [
        'note_add_finding',
        [
          'note',
          'add',
          'finding',
          'Batch path double-posts',
          '--project',
          'ledger',
          '--about',
          'ledger/1',
          '--severity',
          'major',
        ],
      ],
      [
        'risk_add',
        [
          'risk',
          'add',
          'Batch races the shim',
          '--project',
          'ledger',
          '--impact',
          'high',
          '--likelihood',
          'medium',
          '--indicator',
          'duplicate rows',
          '--action',
          'feature flag',
        ],
      ],
      ['glossary', ['glossary', 'ledger', '--term', 'shim', '--def', 'a thin adapter']],
      ['ask', () => run(['ask', 'Which bank feed?', '--about', 'ledger/2', '--json'], { as: tokens.reader as string })],
      ['answer', () => run(['answer', questionOf(), 'The nightly one'])],
      [
        'events_dismiss',
        async () => {
          const r = await run(['task', 'block', 'ledger/2', '--why', 'x', '--json'], { as: tokens.reader as string })
          proposal = r.json.event_id
          return r
        },
      ],
      ['events_dismiss', () => run(['events', 'dismiss', lastEvent(), '--reason', 'not needed'])],
      ['worktree_add', ['worktree', 'add', 'ledger/2']],
      ['worktree_remove', ['worktree', 'remove', 'ledger/2']],
      ['worktree_prune', ['worktree', 'prune']],
      ['github_link', () => run(['github', 'link', 'ledger', '--repo', 'acme/widgets'], { env: gh.env() })],
      ['github_push', () => run(['github', 'push', 'ledger'], { env: gh.env() })],
      [
        'github_pull',
        () => {
          gh.addIssue('acme/widgets', { title: 'Export the ledger as CSV', body: '- [ ] one row per posting' })
          return run(['github', 'pull', 'ledger'], { env: gh.env() })
        },
      ],
      ['github_sync', () => run(['github', 'sync', 'ledger'], { env: gh.env() })],
      // The reader holds a task (its claim was applied by sync): retiring it hands the task back (issue 14, item 8).
      ['agent_retire', () => run(['agent', 'retire', agentOf('reader'), '--release'])],
      ['queue_add', ['queue', 'add', 'release', 'ledger/1', 'ledger/2', '--title', 'Release train']],
      ['queue_advance', ['queue', 'advance', 'release', '--fail', 'flaky test']],
      ['queue_rm', ['queue', 'rm', 'release', '--force']],
      ['record', ['record']],
      [
        'project_rm',
        () =>
          run(['project', 'add', 'Scratch', '--slug', 'scratch']).then(() =>
            run(['project', 'rm', 'scratch', '--force']),
          ),
      ],
    ]
    let question = ''
    const questionOf = () => question
    let proposal = ''
    const lastEvent = () => proposal
    const agents = new Map<string, string>()
    function agentOf(role: string): string {
      return agents.get(role) as string
    }
    const outputs = new Map<string, string>()
    let before = filesOf(root)
    for (const [name, what] of steps) {
      const r = typeof what === 'function' ? await what() : await run(what)
      if (name === 'ask') question = (r as { json: { id: string } }).json.id
      if (name.startsWith('agent_spawn')) {
        const doc = (r as { json: { id: string; role: string } }).json
        agents.set(doc.role, doc.id)
      }
      const after = filesOf(root)
      const lines: string[] = []
      for (const p of [...new Set([...before.keys(), ...after.keys()])].sort()) {
        const a = before.get(p)
        const b = after.get(p)
        if (a === b) continue
        const state = a === undefined ? 'added' : b === undefined ? 'removed' : 'modified'
        lines.push(`=== ${norm.text(p)} (${state})`)
        if (b !== undefined) lines.push(norm.text(b))
      }
      if (lines.length === 0) lines.push('(no file under .dacli/ changed)')
      outputs.set(name, `${outputs.has(name) ? `${outputs.get(name)}\n` : ''}${lines.join('\n')}\n`)
      before = after
    }
    await gh.close()
    expectOnlyGoldens(GOLDEN, new Set([...outputs.keys()].map((name) => `${name}.txt`)))
    for (const [name, text] of outputs) expectGolden(path.join(GOLDEN, `${name}.txt`), text)
    for (const text of outputs.values()) expect(text).not.toMatch(/\bflow: true\b/)
    // Every mutating command of the table has its golden here, or is pinned byte for byte elsewhere.
    const covered = new Set(
      [...outputs.keys()].map((n) =>
        n.replace(/_(dependent|ro|estimate|fields|all|decision|finding)$/, '').replace(/_/g, ' '),
      ),
    )
    covered.add('task claim') // task_claim; proposal_claim is the same command as a read-only identity
    const elsewhere = new Set([
      'record pull', // needs a second clone: internal/features/record/sync.test.ts (materialized and merged files)
      'record push', // writes no file under .dacli/ (a ref on the remote)
      'trust accept', // writes no file under .dacli/ (the anchor is outside the work tree): internal/cli/hostile-trust.test.ts
      'record sync', // needs a remote and a second clone: internal/features/record/recordsync.test.ts
      'pr open', // needs a pushed branch and GitHub's pulls: internal/features/pr/change.test.ts (the task's log line)
      'pr land', // needs a ready pull request: internal/features/pr/change.test.ts
      'note edit', // byte for byte, with hand-written keys, comments and sections: internal/features/note/edit.test.ts
      'note rm', // removes a file: internal/features/note/edit.test.ts
      'risk edit', // byte for byte: internal/features/note/edit.test.ts
      'risk rm', // removes a file: internal/features/note/edit.test.ts
      'project edit', // byte for byte: internal/features/note/edit.test.ts
      'release train', // writes no file under .dacli/ (a promotion pull request on GitHub): internal/features/release/train.test.ts
    ])
    const missing = table.filter((c) => c.mutates && !covered.has(c.path) && !elsewhere.has(c.path)).map((c) => c.path)
    expect(missing).toEqual([])
    expect(fs.readdirSync(GOLDEN).sort()).toEqual([...outputs.keys()].map((n) => `${n}.txt`).sort())
  })
})
