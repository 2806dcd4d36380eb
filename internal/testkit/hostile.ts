// Hostile workspace files: routines sized by the caller — the small
// versions run in `npm test` (internal/cli/hostile*.test.ts), the large ones in `npm run stress`.
// Real workspaces, real links, real processes.

import { spawn, spawnSync } from 'node:child_process'
import * as fs from 'node:fs'
import * as path from 'node:path'
import { hashToken } from '../domain/identity/identity.js'
import { agentSigner, shortFingerprint } from '../domain/identity/signing.js'
import { spawnContent } from '../domain/identity/trust.js'
import type { Figures } from './stress.js'
import { BIN, dacliIn, git, type Run, snapshotOf, spawnBin, tempDir, type Workspace, workspace } from './ws.js'

/** Every file under `dir` with its bytes (links listed by their target, never followed). */
export function treeOf(dir: string): Map<string, string> {
  const m = new Map<string, string>()
  const walk = (d: string) => {
    for (const e of fs.readdirSync(d, { withFileTypes: true })) {
      const p = path.join(d, e.name)
      const rel = path.relative(dir, p)
      if (e.isSymbolicLink()) m.set(rel, `-> ${fs.readlinkSync(p)}`)
      else if (e.isDirectory()) {
        m.set(`${rel}/`, '')
        walk(p)
      } else m.set(rel, fs.readFileSync(p, 'latin1'))
    }
  }
  if (fs.existsSync(dir)) walk(dir)
  return m
}

export const sameTree = (a: Map<string, string>, b: Map<string, string>) =>
  JSON.stringify([...a].sort()) === JSON.stringify([...b].sort())

/** A workspace with project `alpha` (tasks 1 open, 2 active claimed by an rw agent, a note, a risk, an event). */
export async function hostileBase(): Promise<{ ws: Workspace; rw: { id: string; token: string } }> {
  const ws = await workspace()
  await ws.ok('project', 'add', 'Alpha', '--slug', 'alpha')
  await ws.ok('task', 'add', 'First thing', '--project', 'alpha', '--accept', 'it works')
  await ws.ok('task', 'add', 'Second thing', '--project', 'alpha', '--accept', 'also')
  await ws.ok('note', 'add', 'finding', 'Something seen', '--project', 'alpha')
  await ws.ok('risk', 'add', 'Something risky', '--project', 'alpha', '--impact', 'high', '--likelihood', 'low')
  const rw = await ws.agent('rw', 'worker')
  const ro = await ws.agent('ro', 'reader')
  await ws.ok('task', 'claim', 'alpha/2', { as: rw.token })
  await ws.ok('task', 'done', 'alpha/2', { as: ro.token }) // a proposal: one event file
  return { ws, rw }
}

/** Folders under `.dacli/` that a link may replace. */
export const LINKABLE = [
  'projects/alpha/tasks/open',
  'projects/alpha/tasks/active',
  'projects/alpha/tasks',
  'projects/alpha/notes/findings',
  'projects/alpha/risks',
  'projects/alpha',
  'projects',
  'agents',
  'events',
  'cache',
  'locks',
] as const

/** What each linked position is run against: reads, writes, doctor and record. */
const PROBES: (readonly string[])[] = [
  ['task', 'list'],
  ['task', 'show', 'alpha/1'],
  ['task', 'add', 'Another', '--project', 'alpha', '--accept', 'x'],
  ['task', 'claim', 'alpha/1'],
  ['task', 'release', 'alpha/2'],
  ['note', 'add', 'finding', 'More seen', '--project', 'alpha'],
  ['note', 'list'],
  ['agent', 'spawn', '--grant', 'ro'],
  ['agent', 'list', '--all'],
  ['events', 'list'],
  ['sync'],
  ['next'],
  ['status'],
]

/** The stress run's probes: every command that writes the workspace, and the main readers. */
export const ALL_PROBES: (readonly string[])[] = [
  ...PROBES,
  ['task', 'check', 'alpha/1', '--n', '1'],
  ['task', 'uncheck', 'alpha/1', '--n', '1'],
  ['task', 'edit', 'alpha/1', '--estimate', '1,2,3'],
  ['task', 'depend', 'alpha/1', '--add', 'alpha/2'],
  ['task', 'block', 'alpha/1', '--why', 'x'],
  ['task', 'unblock', 'alpha/1'],
  ['task', 'done', 'alpha/1'],
  ['accept', 'alpha/1'],
  ['task', 'reopen', 'alpha/1', '--reason', 'x'],
  ['task', 'renew', 'alpha/2'],
  ['task', 'rm', 'alpha/1', '--force'],
  ['risk', 'add', 'Another risk', '--project', 'alpha', '--impact', 'low', '--likelihood', 'low'],
  ['glossary', 'alpha', '--term', 't', '--def', 'd'],
  ['project', 'add', 'Beta', '--slug', 'beta'],
  ['agent', 'retire', 'a-nobody-000000'],
  ['doctor'],
  ['lint'],
  ['overview'],
  ['critical-path'],
  ['context', 'alpha/1'],
]

/**
 * For each position in `positions`: a fresh copy of `base` whose folder there is replaced by a link to
 * a copy of itself outside the workspace; every probe runs; nothing outside may change, the record must
 * refuse, doctor must name the link. Returns the figures and every failure.
 */
export async function linkedFolders(
  base: Workspace,
  positions: readonly string[] = LINKABLE,
  probes: readonly (readonly string[])[] = PROBES,
): Promise<{ figures: Figures; failures: string[] }> {
  const failures: string[] = []
  let runs = 0
  for (const pos of positions) {
    const root = tempDir('dacli-linked-')
    fs.cpSync(base.root, root, { recursive: true })
    const outside = tempDir('dacli-outside-')
    const inner = path.join(root, '.dacli', ...pos.split('/'))
    if (fs.existsSync(inner)) fs.cpSync(inner, outside, { recursive: true })
    fs.rmSync(inner, { recursive: true, force: true })
    fs.mkdirSync(path.dirname(inner), { recursive: true })
    fs.symlinkSync(outside, inner)
    const before = treeOf(outside)
    const tip = () => {
      try {
        return git(root, 'rev-parse', '-q', '--verify', 'refs/heads/dacli/record').trim()
      } catch {
        return null
      }
    }
    const tipBefore = tip()
    for (const argv of probes) {
      const r = await dacliIn(root, [...argv, '--json'])
      runs++
      if (r.code < 0 || /internal error/.test(r.stderr)) failures.push(`${pos}: ${argv.join(' ')} crashed: ${r.stderr}`)
      if (!sameTree(before, treeOf(outside))) {
        failures.push(`${pos}: ${argv.join(' ')} changed files outside the workspace`)
        break
      }
    }
    const rec = await dacliIn(root, ['record', '--json'])
    // cache/ is never recorded (a linked one is only not used); every other position stops the record.
    if (pos !== 'cache' && (rec.code !== 1 || tip() !== tipBefore))
      failures.push(`${pos}: record did not refuse (exit ${rec.code})`)
    const doc = (await dacliIn(root, ['doctor', '--json'])).json
    const rel = `.dacli/${pos}`
    if (
      !doc.findings.some(
        (f: { code: string; subject: string }) => f.code === 'symlink-in-workspace' && f.subject === rel,
      )
    )
      failures.push(`${pos}: doctor did not report the link`)
    if (!sameTree(before, treeOf(outside))) failures.push(`${pos}: files outside the workspace changed`)
  }
  return { figures: { positions: positions.length, probes: probes.length, runs, failures: failures.length }, failures }
}

/** A task file whose id climbs out of the tree: every command refuses it; nothing outside is touched. */
export async function traversalIds(
  ws: Workspace,
  ids: readonly string[],
): Promise<{ figures: Figures; failures: string[] }> {
  const failures: string[] = []
  ;(await ws.dacli('project', 'add', 'Climb', '--slug', 'climb')).expectExit(0)
  const victim = tempDir('dacli-victim-')
  let n = 0
  for (const id of ids) {
    n++
    fs.writeFileSync(path.join(victim, 'yarn.lock'), 'precious\n')
    const added = (
      await ws.dacli('task', 'add', `Climber ${n}`, '--project', 'climb', '--accept', 'x', '--json')
    ).expectExit(0).json
    const rel = path.basename(added.path as string)
    const seq = added.seq as number
    const file = path.join(ws.root, added.path as string)
    const text = fs.readFileSync(file, 'utf8').replace(/^id: .*$/m, `id: ${id.replace('VICTIM', victim)}`)
    fs.writeFileSync(file, text)
    const snap = snapshotOf(ws.root)
    for (const argv of [
      ['task', 'claim', `climb/${seq}`],
      ['task', 'done', `climb/${seq}`, '--allow-unverified'],
      ['task', 'edit', `climb/${seq}`, '--priority', 'must'],
      ['task', 'rm', `climb/${seq}`, '--force'],
      ['task', 'show', `climb/${seq}`],
    ]) {
      const r: Run = await ws.dacli(...argv, '--json')
      if (r.code !== 1 || !/unreadable task file/.test(r.error?.message ?? ''))
        failures.push(`${id}: ${argv.join(' ')} exit ${r.code} ${r.stderr.slice(0, 160)}`)
    }
    if (!fs.existsSync(path.join(victim, 'yarn.lock'))) failures.push(`${id}: a file outside was deleted`)
    const after = snapshotOf(ws.root)
    if (JSON.stringify([...after]) !== JSON.stringify([...snap])) failures.push(`${id}: the workspace changed`)
    const doc = (await ws.dacli('doctor', '--json')).json
    const f = doc.findings.find(
      (x: { code: string; subject: string }) => x.code === 'invalid-id' && x.subject.endsWith(rel as string),
    )
    if (f === undefined || !/field "id"/.test(f.message)) failures.push(`${id}: doctor did not name the file and field`)
    fs.rmSync(file) // the next id gets a clean project
  }
  return { figures: { ids: ids.length, failures: failures.length }, failures }
}

export const TRAVERSAL_IDS = [
  't-../../../../../../VICTIM/yarn',
  't-../../locks/x',
  '../../../../VICTIM/yarn',
  't-01KBX3Q5M7E2RJ4T8W6YVZ0N1P/../../x',
  't-01kbx3q5m7e2rj4t8w6yvz0n1p', // lower case: not the format dacli writes
]

/** Generated traversal ids for the stress run. */
export function manyTraversalIds(n: number): string[] {
  const out: string[] = []
  const parts = ['..', '.', 'VICTIM', 'x', '', 'locks', 'cache', '%2e%2e', '\\..\\..']
  for (let i = 0; i < n; i++) {
    const depth = 1 + (i % 8)
    const segs = Array.from({ length: depth }, (_, k) => parts[(i * 7 + k * 3) % parts.length])
    out.push(`t-${segs.join('/')}`)
  }
  return out
}

/**
 * `procs` identities claim one fresh task by its id (`t-<ULID>`) while `readers` processes show it,
 * `rounds` times: one winner exits 0, every loser 5 — never 1 or 4 —
 * and no reader fails.
 */
export async function claimByIdRace(ws: Workspace, procs: number, rounds: number, readers: number): Promise<Figures> {
  ;(await ws.dacli('project', 'add', 'Race', '--slug', 'race')).expectExit(0)
  const agents = await Promise.all(Array.from({ length: procs }, (_, i) => ws.agent('rw', `byid${i}`)))
  const codes = new Map<number, number>()
  const readerCodes = new Map<number, number>()
  const odd: string[] = []
  let wrongRounds = 0
  for (let round = 1; round <= rounds; round++) {
    const added = (
      await ws.dacli(
        'task',
        'add',
        `Contested by id ${round}`,
        '--project',
        'race',
        '--accept',
        'x',
        '--force',
        '--json',
      )
    ).expectExit(0).json
    const id = added.id as string
    const runs = await Promise.all([
      ...agents.map((a) => spawnBin(['task', 'claim', id, '--json'], { cwd: ws.root, as: a.token })),
      ...Array.from({ length: readers }, () => spawnBin(['task', 'show', id, '--json'], { cwd: ws.root })),
    ])
    const claims = runs.slice(0, procs)
    const reads = runs.slice(procs)
    for (const r of claims) codes.set(r.code, (codes.get(r.code) ?? 0) + 1)
    for (const r of reads) readerCodes.set(r.code, (readerCodes.get(r.code) ?? 0) + 1)
    const winners = claims.filter((r) => r.code === 0).length
    const losers = claims.filter((r) => r.code === 5).length
    if (winners !== 1 || losers !== procs - 1) wrongRounds++
    for (const r of [...claims, ...reads]) if (r.code !== 0 && r.code !== 5) odd.push(r.stderr.slice(0, 200))
  }
  const fmt = (m: Map<number, number>) =>
    [...m]
      .sort((a, b) => a[0] - b[0])
      .map(([c, n]) => `${n} × ${c}`)
      .join(', ')
  return {
    processes: procs,
    readers,
    rounds,
    rounds_with_other_than_one_winner_and_all_losers_5: wrongRounds,
    claim_exit_codes: fmt(codes),
    reader_exit_codes: fmt(readerCodes),
    failed_readers: reads_failed(readerCodes),
    unexpected: odd.slice(0, 3).join(' | ') || 'none',
  }
}

const reads_failed = (m: Map<number, number>) => [...m].filter(([c]) => c !== 0).reduce((n, [, k]) => n + k, 0)

/** Every event file of a workspace, oldest first. */
export function eventFiles(root: string): string[] {
  const out: string[] = []
  const walk = (d: string) => {
    for (const e of fs.readdirSync(d, { withFileTypes: true })) {
      const p = path.join(d, e.name)
      if (e.isDirectory()) walk(p)
      else if (e.name.endsWith('.md')) out.push(p)
    }
  }
  if (fs.existsSync(path.join(root, '.dacli', 'events'))) walk(path.join(root, '.dacli', 'events'))
  return out.sort()
}

/** Rewrite an event file's frontmatter with `change`, recomputing its checksum as a forger would. */
export async function forge(file: string, change: (d: Record<string, unknown>) => void): Promise<void> {
  const { parseObject, renderEdited } = await import('../format/frontmatter.js')
  const { eventChecksum } = await import('../store/events.js')
  const parsed = parseObject(fs.readFileSync(file, 'utf8'))
  const d = { ...parsed.data }
  change(d)
  const doc = parsed.doc.clone()
  for (const [k, v] of Object.entries(d)) doc.set(k, v)
  for (const k of Object.keys(parsed.data)) if (!(k in d)) doc.delete(k)
  doc.set(
    'checksum',
    eventChecksum({
      id: d.id as string,
      event_kind: d.event_kind as 'claim',
      created: d.created as string,
      created_by: d.created_by as string,
      about: (d.about as string | null) ?? null,
      data: (d.data as Record<string, unknown>) ?? {},
      body: parsed.split.body.trim(),
    }),
  )
  fs.writeFileSync(file, renderEdited(parsed, doc, parsed.split.body))
}

/**
 * `n` proposals by a read-only agent, each forged one way (another author, a ghost author, root, the payload
 * edited, the signature removed or swapped), then one owner's sync: nothing forged is applied, every forged
 * event is skipped as forged-event and reported by doctor.
 */
export async function forgedEvents(ws: Workspace, n: number): Promise<{ figures: Figures; failures: string[] }> {
  const failures: string[] = []
  ;(await ws.dacli('project', 'add', 'Forge', '--slug', 'forge')).expectExit(0)
  const ro = await ws.agent('ro', 'proposer')
  const rw = await ws.agent('rw', 'victim')
  const ways: ((d: Record<string, unknown>, other: string) => void)[] = [
    (d) => {
      d.created_by = rw.id
    },
    (d) => {
      d.created_by = 'a-ghost-zzz999'
    },
    (d) => {
      d.created_by = 'a-root'
    },
    (d) => {
      d.data = { status: 'blocked' }
    },
    (d) => {
      delete d.signature
    },
    (d, other) => {
      d.signature = other
    },
  ]
  const before = eventFiles(ws.root).length
  for (let i = 0; i < n; i++) {
    const t = (
      await ws.dacli('task', 'add', `Forge target ${i}`, '--project', 'forge', '--force', '--json')
    ).expectExit(0)
    ;(await ws.dacli('task', 'block', t.json.id, '--why', `w${i}`, { as: ro.token })).expectExit(0)
  }
  const files = eventFiles(ws.root).slice(before)
  const signatures = files.map((f) => /^signature: (.*)$/m.exec(fs.readFileSync(f, 'utf8'))?.[1] as string)
  for (const [i, f] of files.entries()) {
    await forge(f, (d) =>
      (ways[i % ways.length] as (d: Record<string, unknown>, o: string) => void)(
        d,
        signatures[(i + 1) % files.length] as string,
      ),
    )
  }
  const sync = (await ws.dacli('sync', '--json')).expectExit(0).json
  if (sync.applied.length !== 0) failures.push(`${sync.applied.length} forged events applied`)
  const forged = sync.skipped.filter((s: { code: string }) => s.code === 'forged-event').length
  if (forged !== files.length) failures.push(`${forged} of ${files.length} forged events refused by sync`)
  const doctor = (await ws.dacli('doctor', '--json')).json
  const reported = doctor.findings.filter((f: { code: string }) => f.code === 'forged-event').length
  if (reported !== files.length) failures.push(`${reported} of ${files.length} forged events reported by doctor`)
  const blocked = (await ws.dacli('task', 'list', '--project', 'forge', '--status', 'blocked', '--json')).json.total
  if (blocked !== 0) failures.push(`${blocked} tasks blocked by forged events`)
  return { figures: { events: files.length, ways: ways.length, refused: forged, reported }, failures }
}

/**
 * `record` killed (SIGKILL) at random points while it writes objects, `trials` times: whatever temp files it
 * leaves among git's loose objects, doctor reports them and the next record removes them; `git fsck` ends clean.
 */
export async function recordKills(ws: Workspace, trials: number, random = Math.random): Promise<Figures> {
  ;(await ws.dacli('project', 'add', 'Kills', '--slug', 'kills')).expectExit(0)
  for (let i = 0; i < 60; i++) {
    ;(await ws.dacli('task', 'add', `Record victim ${i}`, '--project', 'kills', '--force', '--quiet')).expectExit(0)
  }
  const open = path.join(ws.root, '.dacli/projects/kills/tasks/open')
  const temps = () => {
    let n = 0
    const objects = path.join(ws.root, '.git', 'objects')
    for (const d of fs.existsSync(objects) ? fs.readdirSync(objects) : []) {
      if (!/^[0-9a-f]{2}$/.test(d)) continue
      n += fs.readdirSync(path.join(objects, d)).filter((f) => f.startsWith('.tmp-dacli-')).length
    }
    return n
  }
  let killed = 0
  let mostLeft = 0
  let reported = 0
  for (let t = 0; t < trials; t++) {
    for (const f of fs.readdirSync(open)) fs.appendFileSync(path.join(open, f), `\nround ${t}\n`)
    const child = spawn(process.execPath, [BIN, 'record', '--quiet'], { cwd: ws.root, stdio: 'ignore' })
    const closed = new Promise((r) => child.on('close', r))
    // Record takes a few hundred milliseconds here: land anywhere from start-up to its object writes.
    await new Promise((r) => setTimeout(r, 150 + random() * 700))
    if (child.exitCode === null && child.signalCode === null) {
      child.kill('SIGKILL')
      killed++
    }
    await closed
    const left = temps()
    mostLeft = Math.max(mostLeft, left)
    if (left > 0) {
      const doc = (await ws.dacli('doctor', '--json')).json
      reported += doc.findings.filter((f: { code: string }) => f.code === 'stale-git-temp').length
    }
  }
  for (const f of fs.readdirSync(open)) fs.appendFileSync(path.join(open, f), '\nafter\n')
  ;(await ws.dacli('record')).expectExit(0)
  const fsck = spawnSync('git', ['fsck', '--no-dangling'], { cwd: ws.root, encoding: 'utf8' })
  return {
    trials,
    killed_while_recording: killed,
    most_temp_objects_left: mostLeft,
    reported_by_doctor: reported,
    temp_objects_after_next_record: temps(),
    fsck_clean: fsck.status === 0 && !/bad sha1/.test(fsck.stderr),
  }
}

export { workspace }

/** An attacker's root key planted under a-root.keys/, and an rw identity it signed. */
export function plantRootKey(root: string): { token: string; id: string; keyFile: string; agent: string } {
  const rootKey = agentSigner('the attacker’s root seed')
  const keyFile = path.join('.dacli', 'agents', 'a-root.keys', `${shortFingerprint(rootKey.publicKey)}.pub`)
  fs.writeFileSync(path.join(root, keyFile), `${rootKey.publicKey}\n`)
  const token = 'attacker-token-0123456789abcdef'
  const id = 'a-evil-abc123'
  const child = {
    id,
    parent: 'a-root',
    grant: 'rw' as const,
    role: null,
    token_hash: hashToken(token),
    public_key: agentSigner(token).publicKey,
    created: '2026-01-01T00:00:00Z',
    created_by: 'a-root',
  }
  const text = [
    '---',
    `id: ${id}`,
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
  ].join('\n')
  fs.writeFileSync(path.join(root, '.dacli', 'agents', `${id}.md`), text)
  return { token, id, keyFile, agent: `.dacli/agents/${id}.md` }
}
