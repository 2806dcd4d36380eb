// Table-wide invariants (ARCHITECTURE.md, COMPATIBILITY.md): they iterate over
// the command table itself, so a command added later is covered the day it is
// added — and this file fails until the new command has a happy-path scenario.

import * as fs from 'node:fs'
import * as path from 'node:path'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { mayMutate } from '../clikit/command.js'
import { usageOf } from '../clikit/help.js'
import { FakeGitHub } from '../testkit/fakegithub.js'
import { expectValid } from '../testkit/schemas.js'
import { dacliIn, git, REPO_ROOT, fixture as sharedFixture, table, tempDir, type Workspace } from '../testkit/ws.js'

/**
 * The shared fixture (testkit `fixture()`), plus a bare repository as `origin` already holding the record branch,
 * an open question about alpha/6 and a read-only claim of alpha/3 (held by the worker: it can never apply).
 */
async function fixture(): Promise<{ ws: Workspace; rw: string; ro: string; question: string; proposal: string }> {
  const { ws, rw, ro } = await sharedFixture()
  ;(await ws.dacli('task', 'add', 'Sixth asked job', '--project', 'alpha', '--accept', 'f')).expectExit(0)
  const question = (await ws.dacli('ask', 'Which port?', '--about', 'alpha/6', '--json')).expectExit(0).json.id
  await ws.ok('risk', 'add', 'Known risk', '--project', 'alpha', '--impact', 'low', '--likelihood', 'low')
  const proposal = (await ws.dacli('task', 'claim', 'alpha/3', '--json', { as: ro.token })).expectExit(0).json.event_id
  const remote = tempDir('dacli-inv-remote-')
  git(remote, 'init', '-q', '--bare')
  git(ws.root, 'remote', 'add', 'origin', remote)
  ;(await ws.dacli('record', 'push')).expectExit(0)
  return { ws, rw: rw.token, ro: ro.token, question, proposal }
}

/**
 * A successful invocation of every command. `as` runs it as the rw agent.
 * Keys must cover the whole table (checked below).
 */
/**
 * `write`: the argv of the command's writing form where its happy path only reads (a preview whose applying form
 * takes a flag the preview prints), for the read-only refusal below.
 */
const SCENARIOS: Record<string, { argv: string[]; as?: 'rw'; sub?: string; write?: string[] }> = {
  init: { argv: ['init', '--here', '--force'], sub: 'nested' },
  whoami: { argv: ['whoami'] },
  help: { argv: ['help', 'task'] },
  catalog: { argv: ['catalog'] },
  schema: { argv: ['schema'] },
  version: { argv: ['version'] },
  capabilities: { argv: ['capabilities', '--require', 'cli.command.task.check.flag.verify'] },
  'project add': { argv: ['project', 'add', 'Beta'] },
  'project list': { argv: ['project', 'list'] },
  'project show': { argv: ['project', 'show', 'alpha'] },
  'project rm': { argv: ['project', 'rm', 'alpha', '--force'] },
  'project edit': { argv: ['project', 'edit', 'alpha', '--stage', 'design', '--goal', 'Ship the ledger'] },
  'task add': { argv: ['task', 'add', 'Third thing', '--project', 'alpha'] },
  'task list': { argv: ['task', 'list'] },
  search: { argv: ['search', 'ledger'] },
  'task show': { argv: ['task', 'show', 'alpha/2'] },
  'task claim': { argv: ['task', 'claim', 'alpha/1', '--lease', '1h'] },
  'task release': { argv: ['task', 'release', 'alpha/3'], as: 'rw' },
  'task renew': { argv: ['task', 'renew', 'alpha/3', '--lease', '30m'], as: 'rw' },
  'task check': { argv: ['task', 'check', 'alpha/1', '--n', '1', '--verify', 'true'] },
  'task uncheck': { argv: ['task', 'uncheck', 'alpha/4', '--n', '1'] },
  'task done': { argv: ['task', 'done', 'alpha/4'] },
  'task block': { argv: ['task', 'block', 'alpha/2', '--by', 'alpha/1', '--why', 'waits'] },
  'task unblock': { argv: ['task', 'unblock', 'alpha/2'] },
  'task reopen': { argv: ['task', 'reopen', 'alpha/5', '--reason', 'regressed'] },
  'task depend': { argv: ['task', 'depend', 'alpha/1', '--add', 'alpha/4:SS'] },
  'task edit': { argv: ['task', 'edit', 'alpha/1', '--priority', 'must', '--accept', 'documented'] },
  'task rm': { argv: ['task', 'rm', 'alpha/4'] },
  accept: { argv: ['accept', 'alpha/4', '--verify', 'true'] },
  'note add': {
    argv: [
      'note',
      'add',
      'finding',
      'Something odd',
      '--project',
      'alpha',
      '--about',
      'alpha/1',
      '--severity',
      'minor',
    ],
  },
  'note list': { argv: ['note', 'list', '--project', 'alpha'] },
  'note show': { argv: ['note', 'show', 'alpha/use-x'] },
  'note edit': { argv: ['note', 'edit', 'alpha/use-x', '--because', 'measured'] },
  'note rm': { argv: ['note', 'rm', 'alpha/use-x', '--force'] },
  'risk add': {
    argv: [
      'risk',
      'add',
      'A risk',
      '--project',
      'alpha',
      '--impact',
      'high',
      '--likelihood',
      'low',
      '--indicator',
      'smoke',
    ],
  },
  'risk list': { argv: ['risk', 'list'] },
  'risk edit': { argv: ['risk', 'edit', 'alpha/known-risk', '--likelihood', 'medium', '--action', 'watch it'] },
  'risk rm': { argv: ['risk', 'rm', 'alpha/known-risk'] },
  glossary: { argv: ['glossary', 'alpha', '--term', 'seam', '--def', 'one place'] },
  'events list': { argv: ['events', 'list', '--pending'] },
  'events dismiss': { argv: ['events', 'dismiss', 'PROPOSAL_ID', '--reason', 'held by the worker'] },
  'events reconcile': {
    argv: ['events', 'reconcile', '--archive', 'orphaned'],
    write: ['events', 'reconcile', '--apply-safe', 'ep-0'],
  },
  reconcile: { argv: ['reconcile', '--project', 'alpha'], write: ['reconcile', '--apply-safe', 'rp-0'] },
  cleanup: { argv: ['cleanup'], write: ['cleanup', '--apply-safe', 'cp-0'] },
  // rt-source and rt-target: two branches at the record branch's commit (beforeAll).
  'release train': {
    argv: ['release', 'train', '--project', 'alpha', '--source', 'rt-source', '--target', 'rt-target', '--dry-run'],
  },
  ask: { argv: ['ask', 'Half-up or half-even?', '--about', 'alpha/1', '--need', 'a rounding rule'] },
  answer: { argv: ['answer', 'QUESTION_ID', 'Port 8080', '--as', 'decision', '--rejected', '80'] },
  threads: { argv: ['threads', '--open', '--project', 'alpha'] },
  watch: { argv: ['watch', '--timeout', '0', '--project', 'alpha'] },
  metrics: { argv: ['metrics', '--project', 'alpha', '--since', '30d'] },
  sync: { argv: ['sync'] },
  status: { argv: ['status'] },
  overview: { argv: ['overview'] },
  next: { argv: ['next', '--project', 'alpha', '--parallel', '2'] },
  'critical-path': { argv: ['critical-path', '--project', 'alpha', '--format', 'mermaid'] },
  doctor: { argv: ['doctor', '--strict'] },
  lint: { argv: ['lint', '--project', 'alpha'] },
  context: { argv: ['context', 'alpha/2', '--budget', '4000'] },
  explain: { argv: ['explain', 'alpha/2'] },
  'agent spawn': { argv: ['agent', 'spawn', '--role', 'helper'] },
  'agent list': { argv: ['agent', 'list', '--all'] },
  'agent show': { argv: ['agent', 'show', 'a-root'] },
  'agent retire': { argv: ['agent', 'retire', 'AGENT_RW', '--release'] },
  'trust show': { argv: ['trust', 'show'] },
  'milestone list': { argv: ['milestone', 'list', '--project', 'alpha'] },
  // The queue `release` (alpha/1, alpha/2) is made in beforeAll.
  'queue add': { argv: ['queue', 'add', 'hotfix', 'alpha/1', '--title', 'Hot fixes'] },
  'queue show': { argv: ['queue', 'show', 'release'] },
  'queue list': { argv: ['queue', 'list'] },
  'queue next': { argv: ['queue', 'next', 'release'] },
  'queue advance': { argv: ['queue', 'advance', 'release', '--fail', 'flaky'] },
  'queue rm': { argv: ['queue', 'rm', 'release', '--force'] },
  'trust accept': { argv: ['trust', 'accept'] },
  // The shortcut `start` (claim a task, show it) is written in beforeAll.
  run: { argv: ['run', 'start', '--ref', 'alpha/1', '--confirm'] },
  'shortcut list': { argv: ['shortcut', 'list'] },
  'shortcut show': { argv: ['shortcut', 'show', 'start'] },
  // Against the fake GitHub started below; alpha is linked to acme/widgets in beforeAll.
  'github doctor': { argv: ['github', 'doctor', 'alpha'] },
  'github link': { argv: ['github', 'link', 'alpha', '--repo', 'acme/widgets'] },
  'github pull': { argv: ['github', 'pull', 'alpha', '--dry-run'] },
  'github push': { argv: ['github', 'push', 'alpha'] },
  'github sync': { argv: ['github', 'sync', 'alpha', '--dry-run'] },
  'github projection': { argv: ['github', 'projection', 'alpha', '--terminal'] },
  // alpha/4 (its criterion checked) has a ready pull request on the fake, found by its marker (beforeAll).
  'pr diagnose': { argv: ['pr', 'diagnose', 'alpha/4'] },
  'pr wait': { argv: ['pr', 'wait', 'alpha/4', '--timeout', '10s'] },
  'pr open': { argv: ['pr', 'open', 'alpha/4'] },
  'pr land': { argv: ['pr', 'land', 'alpha/4'] },
  record: { argv: ['record', '--message', 'checkpoint'] },
  'record log': { argv: ['record', 'log', '--limit', '5'] },
  'record push': { argv: ['record', 'push'] },
  'record pull': { argv: ['record', 'pull'] },
  'record sync': { argv: ['record', 'sync'] },
  'task log': { argv: ['task', 'log', 'alpha/1'] },
  // The fixture's repository has no trunk yet, so the record branch is the base; alpha/2's worktree folder was
  // deleted by hand in beforeAll (remove and prune forget it).
  'worktree add': { argv: ['worktree', 'add', 'alpha/1', '--base', 'dacli/record'] },
  'worktree list': { argv: ['worktree', 'list'] },
  // origin is the fixture's bare remote (no claims yet).
  'claims list': { argv: ['claims', 'list'] },
  'worktree remove': { argv: ['worktree', 'remove', 'alpha/2'] },
  'worktree prune': { argv: ['worktree', 'prune', '--into', 'dacli/record'] },
  // The one command that refuses --json (stdout is the protocol); its --help must not start the server. The
  // scenario is its long-running HTTP form (internal/mcp/http.test.ts serves it), handed the interrupt hook below.
  'mcp serve': { argv: ['mcp', 'serve', '--http', '127.0.0.1:0', '--profile', 'minimal'] },
  // Serves until interrupted: the runs below hand it the interrupt hook and stop it afterwards.
  board: { argv: ['board', '--read-only'] },
}

/** Stop functions of the servers started here (board), as Ctrl-C would call them. */
const servers: (() => void)[] = []
const onInterrupt = (stop: () => void) => {
  servers.push(stop)
}

let base: { ws: Workspace; rw: string; ro: string; question: string; proposal: string }
let rwId: string
/** A fake GitHub for the github commands; every run gets its env (other commands ignore it). */
let gh: FakeGitHub
const env = () => gh.env()

/** A fresh copy of the fixture for a command that writes. */
function copyOf(): string {
  const dir = tempDir('dacli-inv-')
  fs.cpSync(base.ws.root, dir, { recursive: true })
  return dir
}

function snapshot(root: string): Map<string, string> {
  const m = new Map<string, string>()
  const walk = (d: string) => {
    for (const e of fs.readdirSync(d, { withFileTypes: true })) {
      const p = path.join(d, e.name)
      const rel = path.relative(root, p)
      if (rel.startsWith('.dacli/cache') || rel.startsWith('.dacli/locks') || rel.startsWith('.git/')) continue
      if (e.isDirectory()) walk(p)
      else m.set(rel, fs.readFileSync(p, 'latin1'))
    }
  }
  walk(root)
  return m
}

beforeAll(async () => {
  gh = await FakeGitHub.start()
  gh.addRepo('acme/widgets')
  gh.addRepo('acme/site', 'public')
  gh.addIssue('acme/widgets', { title: 'Reported by a user', body: '## Acceptance\n- [ ] fixed' })
  base = await fixture()
  rwId = JSON.parse((await base.ws.dacli('whoami', '--json', { as: base.rw })).stdout).id
  ;(await base.ws.dacli('github', 'link', 'alpha', '--repo', 'acme/widgets', { env: env() })).expectExit(0)
  git(base.ws.root, 'branch', 'rt-source', 'dacli/record')
  git(base.ws.root, 'branch', 'rt-target', 'dacli/record')
  const fourth = (await base.ws.dacli('task', 'show', 'alpha/4', '--json')).json.id
  gh.addPull('acme/widgets', {
    title: 'Fourth ready job',
    head: 'feature/fourth',
    body: `<!-- dacli:${fourth} ws:X -->`,
  })
  const wt = (await base.ws.dacli('worktree', 'add', 'alpha/2', '--base', 'dacli/record', '--json')).expectExit(0)
  fs.rmSync(wt.json.path, { recursive: true, force: true })
  ;(await base.ws.dacli('queue', 'add', 'release', 'alpha/1', 'alpha/2')).expectExit(0)
  fs.mkdirSync(path.join(base.ws.root, '.dacli', 'shortcuts'))
  fs.writeFileSync(
    path.join(base.ws.root, '.dacli', 'shortcuts', 'start.md'),
    '# Start\n\n## Parameters\n\n- ref — the task\n\n## Steps\n\n1. task claim {{ref}} --lease 1h\n2. task show {{ref}}\n',
  )
})
afterAll(async () => {
  for (const stop of servers) stop()
  await gh.close()
})

const argvOf = (path: string) =>
  (SCENARIOS[path]?.argv ?? []).map((a) =>
    a === 'AGENT_RW' ? rwId : a === 'QUESTION_ID' ? base.question : a === 'PROPOSAL_ID' ? base.proposal : a,
  )

describe('table-wide invariants', () => {
  test('a command that streams declares its --jsonl flag, a published line schema and a --json document', () => {
    const streaming = table.filter((c) => c.streams !== undefined)
    expect(streaming.map((c) => c.path)).toEqual(['pr wait', 'record sync', 'watch'])
    for (const c of streaming) {
      expect(c.flags.jsonl?.type).toBe('bool')
      expect(c.json).not.toBeNull()
      expect(
        fs.existsSync(path.join(REPO_ROOT, 'schemas', `${(c.streams as string).replace('/', '.')}.schema.json`)),
      ).toBe(true)
    }
  })

  test('every command has a happy-path scenario here', () => {
    expect(table.map((c) => c.path).filter((p) => !(p in SCENARIOS))).toEqual([])
    expect(Object.keys(SCENARIOS).filter((p) => !table.some((c) => c.path === p))).toEqual([])
  })

  test.each(table.map((c) => [c.path, c] as const))(
    '%s: an unknown flag → exit 2 naming it, nothing written',
    async (_p, cmd) => {
      const dir = copyOf()
      const before = snapshot(dir)
      const r = await dacliIn(dir, [...argvOf(cmd.path), '--zz-no-such-flag', 'v', '--json'])
      expect(r.code).toBe(2)
      expect(r.stdout).toBe('')
      expect(r.error.kind).toBe('usage')
      expect(r.error.details.unknown_flags).toEqual(['--zz-no-such-flag'])
      expect(snapshot(dir)).toEqual(before)
    },
  )

  test.each(table.map((c) => [c.path, c] as const))('%s: --help prints its usage and never runs', async (_p, cmd) => {
    const dir = copyOf()
    const before = snapshot(dir)
    for (const h of ['--help', '-h']) {
      const r = await dacliIn(dir, [...argvOf(cmd.path), h])
      expect(r.code).toBe(0)
      // The synopsis may be folded over lines (at 100 columns off a terminal): compare it unfolded.
      expect(r.stdout.replace(/\n +/g, ' ')).toContain(usageOf(cmd))
    }
    expect(snapshot(dir)).toEqual(before)
  })

  test.each(table.map((c) => [c.path, c] as const))(
    '%s: --json is honored with a schema-valid document, or refused',
    async (_p, cmd) => {
      const dir = copyOf()
      const s = SCENARIOS[cmd.path]
      const cwd = s?.sub === undefined ? dir : path.join(dir, s.sub)
      fs.mkdirSync(cwd, { recursive: true })
      const r = await dacliIn(cwd, [...argvOf(cmd.path), '--json'], {
        env: env(),
        onInterrupt,
        ...(s?.as === 'rw' ? { as: base.rw } : {}),
      })
      if (cmd.json === null) {
        expect(r.code).toBe(2)
        expect(r.error.message).toContain('does not support --json')
        return
      }
      r.expectExit(0)
      expect(r.stdout.endsWith('\n')).toBe(true)
      const lines = r.stdout.trimEnd().split('\n')
      // A command whose --json streams prints its lines first; the document is the last line.
      if (cmd.jsonStreams !== true) expect(lines).toHaveLength(1)
      for (const l of lines.slice(0, -1)) expect(JSON.parse(l).schema).toBe(cmd.streams)
      const doc = JSON.parse(lines[lines.length - 1] as string)
      if (cmd.path === 'schema' && argvOf(cmd.path).length > 1) return
      expect(Object.keys(doc)[0]).toBe('schema')
      expect([cmd.json, ...(cmd.jsonVariants ?? [])]).toContain(doc.schema)
      expectValid(doc)
    },
  )

  test.each(table.filter((c) => mayMutate(c)).map((c) => [c.path, c] as const))(
    '%s: a read-only identity is refused (exit 3) or proposes, and writes no object',
    async (_p, cmd) => {
      const dir = copyOf()
      const before = snapshot(dir)
      // A dry run is a read; the grant gate is about the applying form.
      const argv = SCENARIOS[cmd.path]?.write ?? argvOf(cmd.path).filter((a) => a !== '--dry-run')
      const r = await dacliIn(dir, [...argv, '--json'], { as: base.ro, env: env() })
      if (cmd.standalone) return // init needs no workspace and has no identity to check
      if (cmd.anyGrant) {
        expect(r.code).toBe(0) // open to every grant by declaration (ask)
        return
      }
      if (cmd.proposes) {
        expect([0, 3]).toContain(r.code)
        if (r.code === 0) expect(r.stdout).toContain('"outcome":"proposed"')
        return
      }
      expect(r.code).toBe(3)
      expect(r.error.kind).toBe('refused')
      expect(r.error.details.policy).toBe('grant')
      expect(snapshot(dir)).toEqual(before)
    },
  )
})

describe('exit codes on a fixed scenario table', () => {
  const cases: [string, string[], number][] = [
    ['success', ['task', 'show', 'alpha/1'], 0],
    ['unknown command', ['tsak', 'list'], 2],
    ['unknown flag', ['task', 'list', '--projct', 'alpha'], 2],
    ['bad enum value', ['task', 'list', '--status', 'closed'], 2],
    ['missing argument', ['task', 'show'], 2],
    ['missing required flag', ['task', 'add', 'x'], 2],
    ['bad estimate', ['task', 'add', 'x', '--project', 'alpha', '--estimate', '3,2,1'], 2],
    [
      'estimate past its bound',
      ['task', 'add', 'x', '--project', 'alpha', '--estimate', '1,2,99999999999999999999999'],
      2,
    ],
    ['traversal slug', ['project', 'add', 'x', '--slug', '../escape'], 2],
    ['project rm without --force', ['project', 'rm', 'alpha'], 3],
    ['near duplicate', ['task', 'add', 'First thing again', '--project', 'alpha'], 3],
    ['unknown task', ['task', 'show', 'alpha/99'], 4],
    ['unknown project', ['project', 'show', 'nope'], 4],
    ['existing project slug', ['project', 'add', 'Alpha', '--slug', 'alpha'], 5],
    ['init over an existing workspace', ['init'], 5],
    ['an applying pull under --json', ['github', 'pull', 'alpha'], 2],
    ['a typo in sync', ['github', 'sync', 'alpha', '--dry-rn'], 2],
    ['linking a public repository without consent', ['github', 'link', 'alpha', '--repo', 'acme/site'], 3],
    ['github doctor for an unknown project', ['github', 'doctor', 'nope'], 4],
  ]
  test.each(cases)('%s → %i', async (_name, argv, code) => {
    const dir = copyOf()
    const before = snapshot(dir)
    const r = await dacliIn(dir, [...argv, '--json'], { env: env() })
    expect(r.code).toBe(code)
    if (code !== 0) {
      expect(r.stdout).toBe('')
      expect(r.error.exit_code).toBe(code)
      expectValid(r.error, 'error/v1')
      expect(snapshot(dir)).toEqual(before)
    }
  })

  test('no workspace → 4 with a pointer to init', async () => {
    const r = await dacliIn(tempDir(), ['task', 'list', '--json'])
    expect(r.code).toBe(4)
    expect(r.error.next_actions).toContain('dacli init')
  })

  test('a human-mode usage error ends with the usage line', async () => {
    const r = await dacliIn(base.ws.root, ['task', 'show'])
    expect(r.code).toBe(2)
    expect(r.stderr).toMatch(/^dacli: missing argument <ref>/)
    expect(r.stderr.trimEnd().split('\n').pop()).toBe('usage: dacli task show <ref>')
  })

  test('a missing argument says what to do next (the command’s help), as a missing flag does', async () => {
    for (const argv of [
      ['queue', 'show'],
      ['task', 'add'],
    ]) {
      const r = await dacliIn(base.ws.root, [...argv, '--json'])
      expect(r.code).toBe(2)
      expect(r.error.message).toMatch(/^missing argument </)
      expect(r.error.next_actions).toEqual([`dacli ${argv.join(' ')} --help`])
    }
  })
})
