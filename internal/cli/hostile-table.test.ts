// The hostile-workspace suite over the whole command table (issue 28, "Tests"): for each planted hostile
// condition — links where dacli writes, FIFOs in events/ and agents/, a planted root key, a revived identity, a
// task whose worktree.path points outside — every command of the table runs (its happy-path argv, read from the
// scenario table of internal/cli/invariants.test.ts, so a command added there is covered here the same day) and:
//   - ends, with a known exit code (0–5), never an internal error and never a hang;
//   - writes nothing outside `.dacli/` (and `.git/`): the work tree, the links' targets and the user's worktree
//     outside stay byte for byte;
//   - executes nothing it was not asked to: commands planted in task files and config never run;
//   - leaves `.dacli/` as it was when it refuses (exit ≠ 0);
//   - acts for no identity the anchor does not vouch for (nothing written names the planted or revived agent).
// The commands of one condition run one after another on one copy (destructive ones last), in process.

import { execFileSync } from 'node:child_process'
import * as fs from 'node:fs'
import * as path from 'node:path'
import * as vm from 'node:vm'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { hashToken } from '../domain/identity/identity.js'
import { agentSigner, shortFingerprint } from '../domain/identity/signing.js'
import { spawnContent } from '../domain/identity/trust.js'
import { FakeGitHub } from '../testkit/fakegithub.js'
import { dacliIn, git, REPO_ROOT, fixture as sharedFixture, table, tempDir, type Workspace } from '../testkit/ws.js'

type Scenario = { argv: string[]; as?: 'rw'; sub?: string }

/** The happy-path scenarios of invariants.test.ts: the object literal `SCENARIOS`, read from its source. */
function scenarios(): Record<string, Scenario> {
  const src = fs.readFileSync(path.join(REPO_ROOT, 'internal', 'cli', 'invariants.test.ts'), 'utf8')
  const at = src.indexOf('const SCENARIOS')
  const open = src.indexOf('= {', at) + 2
  let depth = 0
  let quote: string | null = null
  let end = -1
  for (let i = open; i < src.length && end < 0; i++) {
    const c = src[i] as string
    if (quote !== null) {
      if (c === '\\') i++
      else if (c === quote) quote = null
    } else if (c === "'" || c === '"' || c === '`') quote = c
    else if (c === '/' && src[i + 1] === '/') i = src.indexOf('\n', i)
    else if (c === '{') depth++
    else if (c === '}' && --depth === 0) end = i
  }
  return vm.runInNewContext(`(${src.slice(open, end + 1)})`) as Record<string, Scenario>
}

const SCENARIOS = scenarios()

/** Commands that take away what later ones use: run last, in this order. */
const LAST = [
  'worktree remove',
  'worktree prune',
  'record pull',
  'record sync',
  'queue rm',
  'task rm',
  'agent retire',
  'project rm',
  'init',
]
const ORDER = [...table.map((c) => c.path).filter((p) => !LAST.includes(p)), ...LAST]

/** Where a marker command would leave its trace if anything ran one. */
const MARKER = path.join(tempDir('dacli-marker-'), 'ran')
const PLANTED_COMMAND = `touch ${MARKER}`

let base: { ws: Workspace; rw: string; rwId: string; ro: string; question: string; proposal: string }
let gh: FakeGitHub

/** The fixture of invariants.test.ts (same scenarios, same placeholders), built once. */
beforeAll(async () => {
  gh = await FakeGitHub.start()
  gh.addRepo('acme/widgets')
  gh.addRepo('acme/site', 'public')
  const { ws, rw, ro } = await sharedFixture()
  ;(await ws.dacli('task', 'add', 'Sixth asked job', '--project', 'alpha', '--accept', 'f')).expectExit(0)
  const question = (await ws.dacli('ask', 'Which port?', '--about', 'alpha/6', '--json')).expectExit(0).json.id
  const proposal = (await ws.dacli('task', 'claim', 'alpha/3', '--json', { as: ro.token })).expectExit(0).json.event_id
  const remote = tempDir('dacli-hostile-remote-')
  git(remote, 'init', '-q', '--bare')
  git(ws.root, 'remote', 'add', 'origin', remote)
  ;(await ws.dacli('record', 'push')).expectExit(0)
  ;(await ws.dacli('github', 'link', 'alpha', '--repo', 'acme/widgets', { env: gh.env() })).expectExit(0)
  git(ws.root, 'branch', 'rt-source', 'dacli/record')
  git(ws.root, 'branch', 'rt-target', 'dacli/record')
  const fourth = (await ws.dacli('task', 'show', 'alpha/4', '--json')).json.id
  gh.addPull('acme/widgets', {
    title: 'Fourth ready job',
    head: 'feature/fourth',
    body: `<!-- dacli:${fourth} ws:X -->`,
  })
  const wt = (await ws.dacli('worktree', 'add', 'alpha/2', '--base', 'dacli/record', '--json')).expectExit(0)
  fs.rmSync(wt.json.path, { recursive: true, force: true })
  ;(await ws.dacli('queue', 'add', 'release', 'alpha/1', 'alpha/2')).expectExit(0)
  // Commands planted where a hostile file could hope dacli runs them: a task's frontmatter, its Verification
  // section, config.yml.
  const t1 = path.join(ws.root, '.dacli', 'projects', 'alpha', 'tasks', 'open', '001-first-thing.md')
  fs.writeFileSync(
    t1,
    fs
      .readFileSync(t1, 'utf8')
      .replace(/^---\n/, `---\nverify: ${JSON.stringify(PLANTED_COMMAND)}\n`)
      .concat(`\n## Verification\n\n- 2026-01-01T00:00:00Z a-root ran \`${PLANTED_COMMAND}\`: exit 0\n`),
  )
  const cfg = path.join(ws.root, '.dacli', 'config.yml')
  fs.writeFileSync(cfg, `${fs.readFileSync(cfg, 'utf8')}verify: ${JSON.stringify(PLANTED_COMMAND)}\n`)
  ;(await ws.dacli('record')).expectExit(0)
  const rwId = (await ws.dacli('whoami', '--json', { as: rw.token })).json.id
  base = { ws, rw: rw.token, rwId, ro: ro.token, question, proposal }
}, 120_000)

const servers: (() => void)[] = []
afterAll(async () => {
  for (const stop of servers) stop()
  await gh?.close()
})

function copyOfBase(): string {
  const dir = tempDir('dacli-hostile-table-')
  fs.cpSync(base.ws.root, dir, { recursive: true })
  return dir
}

/** Every file under `dir` with its bytes (links as their targets' names), skipping the folders named. */
function treeOf(dir: string, skip: (rel: string) => boolean = () => false): Map<string, string> {
  const m = new Map<string, string>()
  const walk = (d: string) => {
    for (const e of fs.readdirSync(d, { withFileTypes: true })) {
      const p = path.join(d, e.name)
      const rel = path.relative(dir, p)
      if (skip(rel)) continue
      if (e.isSymbolicLink()) m.set(rel, `-> ${fs.readlinkSync(p)}`)
      else if (e.isDirectory()) walk(p)
      else if (e.isFIFO()) m.set(rel, 'fifo')
      else m.set(rel, fs.readFileSync(p, 'latin1'))
    }
  }
  if (fs.existsSync(dir)) walk(dir)
  return m
}

/** Under any `.dacli` folder (or its caches and locks, which a refusal may still touch), or git's own. */
const isDacli = (rel: string) => rel.split(path.sep).includes('.dacli')
const isGit = (rel: string) => rel === '.git' || rel.startsWith(`.git${path.sep}`)
const transient = (rel: string) =>
  /(^|\/)\.dacli\/(cache|locks|journal)(\/|$)/.test(rel) || /(^|\/)\.dacli\/agents\/a-root\.keys(\/|$)/.test(rel)

interface Planted {
  /** The token every command runs as (instead of the scenario's own). */
  as?: string
  /** An identity that must never author anything. */
  forbidden?: string
  /** Folders outside the workspace that must not change. */
  outside: string[]
  /** What doctor must name: `code subject` (and a field, when the finding is about one). */
  doctor: { code: string; subject: string; field?: string }[]
}

/** A folder outside the workspace holding a copy of `.dacli/<rel>`, and `.dacli/<rel>` replaced by a link to it. */
function linkOut(root: string, rel: string): string {
  const inside = path.join(root, '.dacli', rel)
  const out = path.join(tempDir('dacli-outside-'), path.basename(rel))
  if (fs.existsSync(inside)) fs.cpSync(inside, out, { recursive: true })
  else fs.mkdirSync(out, { recursive: true })
  fs.rmSync(inside, { recursive: true, force: true })
  fs.mkdirSync(path.dirname(inside), { recursive: true })
  fs.symlinkSync(out, inside)
  return path.dirname(out)
}

const CONDITIONS: Record<string, (root: string) => Promise<Planted>> = {
  'links at the places dacli writes': async (root) => {
    const at = ['journal', 'cache', 'worktrees', `events/${new Date().getUTCFullYear()}`, 'projects/alpha/tasks/active']
    return {
      outside: at.map((rel) => linkOut(root, rel)),
      doctor: at.map((rel) => ({ code: 'symlink-in-workspace', subject: `.dacli/${rel}` })),
    }
  },
  'FIFOs in events/ and agents/': async (root) => {
    const day = path.join(root, '.dacli', 'events', '2026', '01', '01')
    fs.mkdirSync(day, { recursive: true })
    execFileSync('mkfifo', [path.join(day, '01KA0000000000000000000000-a-root-claim.md')])
    execFileSync('mkfifo', [path.join(root, '.dacli', 'agents', 'a-fifo-000000.md')])
    return {
      outside: [],
      doctor: [
        { code: 'special-file', subject: '.dacli/events/2026/01/01/01KA0000000000000000000000-a-root-claim.md' },
        { code: 'special-file', subject: '.dacli/agents/a-fifo-000000.md' },
      ],
    }
  },
  'a planted root key and the identity it signed': async (root) => {
    const rootKey = agentSigner('the attacker’s root seed')
    const keyFile = `.dacli/agents/a-root.keys/${shortFingerprint(rootKey.publicKey)}.pub`
    fs.writeFileSync(path.join(root, keyFile), `${rootKey.publicKey}\n`)
    const token = 'attacker-token-0123456789abcdef'
    const child = {
      id: 'a-evil-abc123',
      parent: 'a-root',
      grant: 'rw' as const,
      role: null,
      token_hash: hashToken(token),
      public_key: agentSigner(token).publicKey,
      created: '2026-01-01T00:00:00Z',
      created_by: 'a-root',
    }
    fs.writeFileSync(
      path.join(root, '.dacli', 'agents', `${child.id}.md`),
      [
        '---',
        `id: ${child.id}`,
        'kind: agent',
        `created: ${child.created}`,
        'created_by: a-root',
        'parent: a-root',
        'grant: rw',
        `token_hash: ${child.token_hash}`,
        `public_key: ${child.public_key}`,
        `signature: ${rootKey.sign(spawnContent(child))}`,
        'retired: false',
        '---',
        '# evil',
        '',
      ].join('\n'),
    )
    return {
      as: token,
      forbidden: child.id,
      outside: [],
      doctor: [
        { code: 'untrusted-key', subject: keyFile },
        { code: 'untrusted-key', subject: `.dacli/agents/${child.id}.md` },
      ],
    }
  },
  'a retired identity revived by an edit': async (root) => {
    const a = (await dacliIn(root, ['agent', 'spawn', '--grant', 'rw', '--role', 'ghost', '--json'])).expectExit(0).json
    ;(await dacliIn(root, ['agent', 'retire', a.id])).expectExit(0)
    const file = path.join(root, '.dacli', 'agents', `${a.id}.md`)
    fs.writeFileSync(file, fs.readFileSync(file, 'utf8').replace(/^retired: true$/m, 'retired: false'))
    return {
      as: a.token,
      forbidden: a.id,
      outside: [],
      doctor: [{ code: 'tampered-identity', subject: `.dacli/agents/${a.id}.md`, field: 'retired' }],
    }
  },
  'a task whose worktree.path points outside': async (root) => {
    const theirs = tempDir('dacli-users-worktree-')
    git(theirs, 'init', '-q', '-b', 'main')
    fs.writeFileSync(path.join(theirs, 'precious.txt'), 'the user’s own work\n')
    const dir = path.join(root, '.dacli', 'projects', 'alpha', 'tasks')
    const doctor: Planted['doctor'] = []
    for (const status of fs.readdirSync(dir)) {
      for (const name of fs.readdirSync(path.join(dir, status))) {
        if (!name.startsWith('002-')) continue
        const f = path.join(dir, status, name)
        const text = fs.readFileSync(f, 'utf8')
        expect(text).toMatch(/^worktree:/m)
        fs.writeFileSync(
          f,
          text.replace(/^worktree: .*$/m, `worktree: {path: ${JSON.stringify(theirs)}, branch: main}`),
        )
        doctor.push({ code: 'invalid-field', subject: path.relative(root, f), field: 'worktree.path' })
      }
    }
    expect(doctor).toHaveLength(1)
    return { outside: [theirs], doctor }
  },
}

/** The argv of a scenario with its placeholders filled in. */
const argvOf = (p: string) =>
  (SCENARIOS[p]?.argv ?? []).map((a) =>
    a === 'AGENT_RW' ? base.rwId : a === 'QUESTION_ID' ? base.question : a === 'PROPOSAL_ID' ? base.proposal : a,
  )

const HANG_MS = 30_000

describe('the hostile-workspace suite over the command table', () => {
  test('the scenario table is read and covers the table', () => {
    expect(ORDER.filter((p) => SCENARIOS[p] === undefined)).toEqual([])
  })

  test.each(Object.keys(CONDITIONS))(
    '%s: every command ends with a known code, writes nothing outside, runs nothing, changes nothing when it refuses',
    async (condition) => {
      const root = copyOfBase()
      const planted = await (CONDITIONS[condition] as (r: string) => Promise<Planted>)(root)
      const outsideBefore = planted.outside.map((d) => treeOf(d))
      // doctor names each planted file (and the field, where the finding is about one), and runs nothing.
      const findings = (await dacliIn(root, ['doctor', '--json'])).json.findings as {
        code: string
        subject: string
        message: string
      }[]
      for (const want of planted.doctor) {
        expect(findings, `${want.code} ${want.subject}`).toContainEqual(
          expect.objectContaining({
            code: want.code,
            subject: want.subject,
            ...(want.field === undefined ? {} : { message: expect.stringContaining(`"${want.field}"`) }),
          }),
        )
      }
      const workTree = () => treeOf(root, (rel) => isDacli(rel) || isGit(rel))
      const workBefore = workTree()
      const failures: string[] = []
      for (const p of ORDER) {
        const s = SCENARIOS[p] as Scenario
        const cwd = s.sub === undefined ? root : path.join(root, s.sub)
        fs.mkdirSync(cwd, { recursive: true })
        const before = treeOf(path.join(root, '.dacli'))
        const as = planted.as ?? (s.as === 'rw' ? base.rw : undefined)
        const run = dacliIn(cwd, [...argvOf(p), '--json'], {
          env: gh.env(),
          onInterrupt: (stop) => servers.push(stop),
          ...(as === undefined ? {} : { as }),
        })
        let timer: NodeJS.Timeout | undefined
        const r = await Promise.race([
          run,
          new Promise<null>((resolve) => {
            timer = setTimeout(() => resolve(null), HANG_MS)
          }),
        ])
        clearTimeout(timer)
        if (r === null) {
          failures.push(`${p}: still running after ${HANG_MS} ms`)
          break
        }
        if (!(r.code >= 0 && r.code <= 5)) failures.push(`${p}: exit ${r.code}`)
        if (/internal error/.test(r.stderr)) failures.push(`${p}: ${r.stderr.trim().slice(0, 300)}`)
        const after = treeOf(path.join(root, '.dacli'))
        if (r.code !== 0) {
          const changed = [...new Set([...before.keys(), ...after.keys()])].filter(
            (k) => !transient(path.join('.dacli', k)) && before.get(k) !== after.get(k),
          )
          if (changed.length > 0) failures.push(`${p}: refused (exit ${r.code}) but changed ${changed.join(', ')}`)
        }
        if (planted.forbidden !== undefined) {
          for (const [k, v] of after) {
            if (before.get(k) !== v && v.includes(planted.forbidden) && !k.startsWith('agents'))
              failures.push(`${p}: wrote ${k} naming ${planted.forbidden} (exit ${r.code})`)
          }
        }
        if (fs.existsSync(MARKER)) {
          failures.push(`${p}: ran a planted command`)
          fs.rmSync(MARKER)
        }
      }
      for (const [i, d] of planted.outside.entries()) {
        const now = treeOf(d)
        const was = outsideBefore[i] as Map<string, string>
        const changed = [...new Set([...was.keys(), ...now.keys()])].filter((k) => was.get(k) !== now.get(k))
        if (changed.length > 0) failures.push(`outside ${d} changed: ${changed.join(', ')}`)
      }
      const workAfter = workTree()
      const strayed = [...new Set([...workBefore.keys(), ...workAfter.keys()])].filter(
        (k) => workBefore.get(k) !== workAfter.get(k),
      )
      if (strayed.length > 0) failures.push(`written outside .dacli/: ${strayed.join(', ')}`)
      expect(failures).toEqual([])
    },
    300_000,
  )
})
