// The hostile-workspace suite over the whole command table (issue 28, "Tests"), sized by the caller: the small
// version runs in `npm test` (internal/cli/hostile-table.test.ts: each condition's commands one after another on
// one copy), the large one in `npm run stress` (bench/stress.test.ts: every command on a fresh copy, more
// conditions). For each planted hostile condition every command of the table runs its happy-path argv, read from
// the scenario table of internal/cli/invariants.test.ts (one list: a command added there is covered here the same
// day), and must:
//   - end, with a known exit code (0–5), never an internal error and never a hang;
//   - write nothing outside `.dacli/` (and `.git/`): the work tree, the links' targets and a user's worktree
//     outside stay byte for byte;
//   - execute nothing it was not asked to: commands planted in a task file and config.yml never run;
//   - leave `.dacli/` as it was when it refuses (exit ≠ 0);
//   - act for no identity the anchor does not vouch for (nothing written names the planted or revived agent);
// and doctor names each planted file (and field).

import { execFileSync } from 'node:child_process'
import * as fs from 'node:fs'
import * as path from 'node:path'
import * as vm from 'node:vm'
import { FakeGitHub } from './fakegithub.js'
import { plantRootKey } from './hostile.js'
import type { Figures } from './stress.js'
import { dacliIn, git, REPO_ROOT, fixture as sharedFixture, table, tempDir, type Workspace } from './ws.js'

export type Scenario = { argv: string[]; as?: 'rw'; sub?: string }

/** The happy-path scenarios of invariants.test.ts: its object literal `SCENARIOS`, read from the source. */
export function readScenarios(): Record<string, Scenario> {
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

export const SCENARIOS = readScenarios()

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
export const ORDER = [...table.map((c) => c.path).filter((p) => !LAST.includes(p)), ...LAST]

/** Where a marker command would leave its trace if anything ran one. */
const MARKER = path.join(tempDir('dacli-marker-'), 'ran')
const PLANTED_COMMAND = `touch ${MARKER}`

export interface TableBase {
  ws: Workspace
  gh: FakeGitHub
  rw: string
  rwId: string
  question: string
  proposal: string
  /** Stop functions of the servers (board) the runs started. */
  servers: (() => void)[]
  close(): Promise<void>
}

/** The fixture of invariants.test.ts (same scenarios, same placeholders) with commands planted where none may run. */
export async function tableBase(): Promise<TableBase> {
  const gh = await FakeGitHub.start()
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
  const servers: (() => void)[] = []
  return {
    ws,
    gh,
    rw: rw.token,
    rwId,
    question,
    proposal,
    servers,
    async close() {
      for (const stop of servers) stop()
      await gh.close()
    },
  }
}

function copyOf(base: TableBase): string {
  const dir = tempDir('dacli-hostile-table-')
  fs.cpSync(base.ws.root, dir, { recursive: true })
  return dir
}

/** Every file under `dir` with its bytes (links as their targets' names), skipping what `skip` names. */
function treeOf(dir: string, skip: (rel: string) => boolean = () => false): Map<string, string> {
  const m = new Map<string, string>()
  const walk = (d: string) => {
    for (const e of fs.readdirSync(d, { withFileTypes: true })) {
      const p = path.join(d, e.name)
      const rel = path.relative(dir, p)
      if (skip(rel)) continue
      if (e.isSymbolicLink()) m.set(rel, `-> ${fs.readlinkSync(p)}`)
      else if (e.isDirectory()) walk(p)
      else if (e.isFIFO() || e.isSocket()) m.set(rel, 'special')
      else m.set(rel, fs.readFileSync(p, 'latin1'))
    }
  }
  if (fs.existsSync(dir)) walk(dir)
  return m
}

const changedKeys = (a: Map<string, string>, b: Map<string, string>) =>
  [...new Set([...a.keys(), ...b.keys()])].filter((k) => a.get(k) !== b.get(k))

/** Under any `.dacli` folder, or git's own. */
const isDacli = (rel: string) => rel.split(path.sep).includes('.dacli')
const isGit = (rel: string) => rel === '.git' || rel.startsWith(`.git${path.sep}`)
/** What a refusal may still touch: caches, locks, the change journal, the published keys' folder. */
const transient = (rel: string) => /^(cache|locks|journal)(\/|$)/.test(rel) || /^agents\/a-root\.keys(\/|$)/.test(rel)

export interface Planted {
  /** The token every command runs as (instead of the scenario's own). */
  as?: string
  /** An identity that must never author anything. */
  forbidden?: string
  /** Folders outside the workspace that must not change. */
  outside: string[]
  /** What doctor must name: the code and subject (and a field, when the finding is about one). */
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

function links(at: string[]): (root: string) => Promise<Planted> {
  return async (root) => ({
    outside: at.map((rel) => linkOut(root, rel)),
    doctor: at.map((rel) => ({ code: 'symlink-in-workspace', subject: `.dacli/${rel}` })),
  })
}

function fifos(at: string[]): (root: string) => Promise<Planted> {
  return async (root) => {
    for (const rel of at) {
      fs.mkdirSync(path.dirname(path.join(root, rel)), { recursive: true })
      execFileSync('mkfifo', [path.join(root, rel)])
    }
    return { outside: [], doctor: at.map((rel) => ({ code: 'special-file', subject: rel })) }
  }
}

/** The conditions of the small suite: each finding of issue 28 that a planted file or link makes. */
export const CONDITIONS: Record<string, (root: string) => Promise<Planted>> = {
  'links at the places dacli writes': links([
    'journal',
    'cache',
    'worktrees',
    `events/${new Date().getUTCFullYear()}`,
    'projects/alpha/tasks/active',
  ]),
  'links at agents/, a notes folder and the risks': links([
    'agents',
    'projects/alpha/notes/decisions',
    'projects/alpha/risks',
  ]),
  'FIFOs in events/ and agents/': fifos([
    '.dacli/events/2026/01/01/01KA0000000000000000000000-a-root-claim.md',
    '.dacli/agents/a-fifo-000000.md',
  ]),
  'a planted root key and the identity it signed': async (root) => {
    const { token, id, keyFile } = plantRootKey(root)
    return {
      as: token,
      forbidden: id,
      outside: [],
      doctor: [
        { code: 'untrusted-key', subject: keyFile },
        { code: 'untrusted-key', subject: `.dacli/agents/${id}.md` },
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
        if (!/^worktree:/m.test(text)) throw new Error(`${f} has no worktree to point elsewhere`)
        fs.writeFileSync(
          f,
          text.replace(/^worktree: .*$/m, `worktree: {path: ${JSON.stringify(theirs)}, branch: main}`),
        )
        doctor.push({ code: 'invalid-field', subject: path.relative(root, f), field: 'worktree.path' })
      }
    }
    if (doctor.length !== 1) throw new Error(`expected one copy of task 2, found ${doctor.length}`)
    return { outside: [theirs], doctor }
  },
}

/** More conditions for the stress run: links and special files in every other kind of folder dacli reads or writes. */
export const MORE_CONDITIONS: Record<string, (root: string) => Promise<Planted>> = {
  'a link at locks/': links(['locks']),
  'links at events/ and a project': links(['events', 'projects/alpha']),
  'FIFOs among the notes and the tasks': fifos([
    '.dacli/projects/alpha/notes/findings/a-fifo.md',
    '.dacli/projects/alpha/tasks/open/099-a-fifo.md',
  ]),
}

/** The argv of a scenario with its placeholders filled in. */
function argvOf(base: TableBase, p: string): string[] {
  return (SCENARIOS[p]?.argv ?? []).map((a) =>
    a === 'AGENT_RW' ? base.rwId : a === 'QUESTION_ID' ? base.question : a === 'PROPOSAL_ID' ? base.proposal : a,
  )
}

const HANG_MS = 30_000

/**
 * A pull (or sync) that merged and raised decisions exits 5 having written — the merged files and the questions
 * (FORMAT.md, "Merging records"): an outcome, not a refusal.
 */
function decided(stderr: string): boolean {
  try {
    const d = (JSON.parse(stderr) as { details?: { decisions?: unknown[]; outcome?: string } }).details
    return (d?.decisions?.length ?? 0) > 0 || d?.outcome === 'decisions'
  } catch {
    return false
  }
}

/**
 * Plant `condition` in a copy of the base and run every command of the table. `isolated`: each command on a fresh
 * copy (the stress run); otherwise one after another on one copy, destructive commands last. Returns the failures
 * (empty when every rule above held) and the figures (exit codes seen).
 */
export async function hostileTable(
  base: TableBase,
  name: string,
  plant: (root: string) => Promise<Planted>,
  opts: { isolated: boolean },
): Promise<{ failures: string[]; figures: Figures }> {
  const failures: string[] = []
  const codes = new Map<number, number>()
  const prepare = async () => {
    const root = copyOf(base)
    const planted = await plant(root)
    return {
      root,
      planted,
      outsideBefore: planted.outside.map((d) => treeOf(d)),
      workBefore: treeOf(root, (rel) => isDacli(rel) || isGit(rel)),
    }
  }
  /** What must hold once the commands are done: the outside untouched, nothing written outside .dacli/. */
  const settle = (w: Awaited<ReturnType<typeof prepare>>, label: string) => {
    for (const [i, d] of w.planted.outside.entries()) {
      const changed = changedKeys(w.outsideBefore[i] as Map<string, string>, treeOf(d))
      if (changed.length > 0) failures.push(`${label}: outside ${d} changed: ${changed.join(', ')}`)
    }
    const strayed = changedKeys(
      w.workBefore,
      treeOf(w.root, (rel) => isDacli(rel) || isGit(rel)),
    )
    if (strayed.length > 0) failures.push(`${label}: written outside .dacli/: ${strayed.join(', ')}`)
  }
  let shared = opts.isolated ? null : await prepare()
  if (shared !== null) {
    const findings = (await dacliIn(shared.root, ['doctor', '--json'])).json.findings as {
      code: string
      subject: string
      message: string
    }[]
    for (const want of shared.planted.doctor) {
      const found = findings.some(
        (f) =>
          f.code === want.code &&
          f.subject === want.subject &&
          (want.field === undefined || f.message.includes(`"${want.field}"`)),
      )
      if (!found)
        failures.push(`doctor does not name ${want.code} ${want.subject}${want.field ? ` ${want.field}` : ''}`)
    }
  }
  for (const p of ORDER) {
    const w = shared ?? (await prepare())
    const s = SCENARIOS[p] as Scenario
    const cwd = s.sub === undefined ? w.root : path.join(w.root, s.sub)
    fs.mkdirSync(cwd, { recursive: true })
    const dacli = path.join(w.root, '.dacli')
    const before = treeOf(dacli)
    const as = w.planted.as ?? (s.as === 'rw' ? base.rw : undefined)
    let timer: NodeJS.Timeout | undefined
    const r = await Promise.race([
      dacliIn(cwd, [...argvOf(base, p), '--json'], {
        env: base.gh.env(),
        onInterrupt: (stop) => base.servers.push(stop),
        ...(as === undefined ? {} : { as }),
      }),
      new Promise<null>((resolve) => {
        timer = setTimeout(() => resolve(null), HANG_MS)
      }),
    ])
    clearTimeout(timer)
    if (r === null) {
      failures.push(`${name} › ${p}: still running after ${HANG_MS} ms`)
      break
    }
    codes.set(r.code, (codes.get(r.code) ?? 0) + 1)
    if (!(r.code >= 0 && r.code <= 5)) failures.push(`${name} › ${p}: exit ${r.code}`)
    if (/internal error/.test(r.stderr)) failures.push(`${name} › ${p}: ${r.stderr.trim().slice(0, 300)}`)
    const after = treeOf(dacli)
    if (r.code !== 0 && !decided(r.stderr)) {
      const changed = changedKeys(before, after).filter((k) => !transient(k))
      if (changed.length > 0)
        failures.push(`${name} › ${p}: refused (exit ${r.code}) but changed ${changed.join(', ')}`)
    }
    const forbidden = w.planted.forbidden
    if (forbidden !== undefined) {
      for (const k of changedKeys(before, after)) {
        if ((after.get(k) ?? '').includes(forbidden) && !k.startsWith('agents'))
          failures.push(`${name} › ${p}: wrote ${k} naming ${forbidden} (exit ${r.code})`)
      }
    }
    if (fs.existsSync(MARKER)) {
      failures.push(`${name} › ${p}: ran a planted command`)
      fs.rmSync(MARKER)
    }
    if (shared === null) settle(w, `${name} › ${p}`)
  }
  if (shared !== null) settle(shared, name)
  shared = null
  return {
    failures,
    figures: {
      commands: ORDER.length,
      ...Object.fromEntries([...codes].sort(([a], [b]) => a - b).map(([c, n]) => [`exit ${c}`, n])),
    },
  }
}
