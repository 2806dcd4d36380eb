// Hostile workspace files (quality.md, Reliability; issue 12): routines sized by the caller — the small
// versions run in `npm test` (internal/cli/hostile*.test.ts), the large ones in `npm run stress`.
// Real workspaces, real links, real processes.

import * as fs from 'node:fs'
import * as path from 'node:path'
import type { Figures } from './stress.js'
import { dacliIn, git, type Run, type RunOpts, snapshotOf, tempDir, type Workspace, workspace } from './ws.js'

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
  const ok = async (...a: (string | RunOpts)[]) => (await ws.dacli(...a)).expectExit(0)
  await ok('project', 'add', 'Alpha', '--slug', 'alpha')
  await ok('task', 'add', 'First thing', '--project', 'alpha', '--accept', 'it works')
  await ok('task', 'add', 'Second thing', '--project', 'alpha', '--accept', 'also')
  await ok('note', 'add', 'finding', 'Something seen', '--project', 'alpha')
  await ok('risk', 'add', 'Something risky', '--project', 'alpha', '--impact', 'high', '--likelihood', 'low')
  const rw = await ws.agent('rw', 'worker')
  const ro = await ws.agent('ro', 'reader')
  await ok('task', 'claim', 'alpha/2', { as: rw.token })
  await ok('task', 'done', 'alpha/2', { as: ro.token }) // a proposal: one event file
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

export { workspace }
