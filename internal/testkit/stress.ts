// Reliability routines, sized by the caller: the small versions
// run in `npm test`, the large ones in `npm run stress`. Real processes only.

import { type ChildProcess, spawn } from 'node:child_process'
import * as fs from 'node:fs'
import * as path from 'node:path'
import { BIN, type Run, spawnBin, tempDir, type Workspace } from './ws.js'

export interface Figures {
  [k: string]: number | string | boolean | number[]
}

/** A task for one round of a race: no criteria check (titles repeat), quiet. */
export const raceTask = (ws: Workspace, project: string, title: string) =>
  ws.ok('task', 'add', title, '--project', project, '--force', '--accept', 'x', '--quiet')

/** `procs` identities race to claim one fresh task, `rounds` times: exactly one wins each round. */
export async function claimRace(ws: Workspace, procs: number, rounds: number): Promise<Figures> {
  ;(await ws.dacli('project', 'add', 'Claims', '--slug', 'claims')).expectExit(0)
  const agents = await Promise.all(Array.from({ length: procs }, (_, i) => ws.agent('rw', `racer${i}`)))
  let wrong = 0
  let multiClaims = 0
  const t0 = Date.now()
  for (let round = 1; round <= rounds; round++) {
    await raceTask(ws, 'claims', `Contested ${round}`)
    const runs = await Promise.all(
      agents.map((a) => spawnBin(['task', 'claim', `claims/${round}`, '--json'], { cwd: ws.root, as: a.token })),
    )
    const winners = runs.filter((r) => r.code === 0).length
    const losers = runs.filter((r) => r.code === 5).length
    if (winners !== 1 || losers !== procs - 1) wrong++
    const t = (await ws.dacli('task', 'show', `claims/${round}`, '--json')).expectExit(0).json
    if (t.log.filter((l: { verb: string }) => l.verb === 'claimed').length !== 1) multiClaims++
  }
  return {
    processes: procs,
    rounds,
    rounds_with_other_than_one_winner: wrong,
    tasks_with_more_than_one_claim: multiClaims,
    seconds: (Date.now() - t0) / 1000,
  }
}

/** `procs` processes add `each` tasks to one project at once: every number distinct, none lost. */
export async function seqRace(ws: Workspace, procs: number, each: number): Promise<Figures> {
  ;(await ws.dacli('project', 'add', 'Seq', '--slug', 'seq')).expectExit(0)
  const t0 = Date.now()
  const failed: Run[] = []
  await Promise.all(
    Array.from({ length: procs }, async (_, p) => {
      for (let i = 0; i < each; i++) {
        const r = await spawnBin(
          ['task', 'add', `worker ${p} item ${i} w${p}i${i}`, '--project', 'seq', '--force', '--quiet'],
          { cwd: ws.root },
        )
        if (r.code !== 0) failed.push(r)
      }
    }),
  )
  const list = (await ws.dacli('task', 'list', '--project', 'seq', '--json')).expectExit(0).json
  const seqs = list.tasks.map((t: { seq: number }) => t.seq)
  return {
    processes: procs,
    adds: procs * each,
    failed: failed.length,
    tasks: list.total,
    distinct_numbers: new Set(seqs).size,
    seconds: (Date.now() - t0) / 1000,
  }
}

/** `procs` processes tick different boxes of one task at once, `rounds` times: every tick persists. */
export async function tickRace(ws: Workspace, procs: number, rounds: number): Promise<Figures> {
  ;(await ws.dacli('project', 'add', 'Ticks', '--slug', 'ticks')).expectExit(0)
  let lost = 0
  for (let round = 1; round <= rounds; round++) {
    const accept = Array.from({ length: procs }, (_, i) => ['--accept', `criterion ${i + 1}`]).flat()
    ;(
      await ws.dacli('task', 'add', `Boxes ${round}`, '--project', 'ticks', '--force', '--quiet', ...accept)
    ).expectExit(0)
    await Promise.all(
      Array.from({ length: procs }, (_, i) =>
        spawnBin(['task', 'check', `ticks/${round}`, '--n', String(i + 1)], { cwd: ws.root }),
      ),
    )
    const t = (await ws.dacli('task', 'show', `ticks/${round}`, '--json')).json
    lost += procs - t.acceptance_done
  }
  return { processes: procs, rounds, ticks: procs * rounds, lost_ticks: lost }
}

function kill(child: ChildProcess, afterMs: number): Promise<number | null> {
  return new Promise((resolve) => {
    const timer = setTimeout(() => child.kill('SIGKILL'), afterMs)
    child.on('close', (code) => {
      clearTimeout(timer)
      resolve(code)
    })
  })
}

/**
 * `trials` writing commands, each killed with SIGKILL at a random moment while it works.
 * Afterwards: no partial or corrupt object, the workspace opens, doctor reports at most
 * stale locks, stale temp files and interrupted moves — and the next writes clean them up.
 */
export async function crashTrials(ws: Workspace, trials: number, random: () => number = Math.random): Promise<Figures> {
  ;(await ws.dacli('project', 'add', 'Crash', '--slug', 'crash')).expectExit(0)
  for (let i = 1; i <= 12; i++) {
    ;(
      await ws.dacli(
        'task',
        'add',
        `Crash target ${i}`,
        '--project',
        'crash',
        '--force',
        '--quiet',
        '--accept',
        'a',
        '--accept',
        'b',
        '--accept',
        'c',
      )
    ).expectExit(0)
  }
  const rw = await ws.agent('rw', 'crasher')
  const ro = await ws.agent('ro', 'proposer')
  const ops = [
    (n: number) => ['task', 'add', `Crash item ${n}`, '--project', 'crash', '--force', '--accept', 'x'],
    (n: number) => ['task', 'check', `crash/${1 + (n % 12)}`, '--n', String(1 + (n % 3))],
    (n: number) => ['task', 'uncheck', `crash/${1 + (n % 12)}`, '--n', String(1 + (n % 3))],
    (n: number) => ['task', 'claim', `crash/${1 + (n % 12)}`],
    (n: number) => ['task', 'release', `crash/${1 + (n % 12)}`],
    (n: number) => [
      'task',
      'edit',
      `crash/${1 + (n % 12)}`,
      '--priority',
      ['must', 'should', 'could'][n % 3] as string,
    ],
    (n: number) => ['task', 'block', `crash/${1 + (n % 12)}`, '--why', `crash ${n}`],
    (n: number) => ['task', 'unblock', `crash/${1 + (n % 12)}`],
    (n: number) => ['note', 'add', 'finding', `Crash finding ${n}`, '--project', 'crash'],
  ]
  const env: Record<string, string | undefined> = { ...process.env, NO_COLOR: '1' }
  delete env.DACLI_AGENT
  let killedMidway = 0
  const t0 = Date.now()
  for (let n = 0; n < trials; n++) {
    const op = ops[Math.floor(random() * ops.length)] as (n: number) => string[]
    const as = random() < 0.15 ? ro.token : random() < 0.5 ? rw.token : undefined
    const child = spawn(process.execPath, [BIN, ...op(n), '--quiet'], {
      cwd: ws.root,
      env: as === undefined ? env : { ...env, DACLI_AGENT: as },
      stdio: 'ignore',
    })
    // Land while the command works: after node has started, before it would normally be done.
    const code = await kill(child, 30 + random() * 110)
    if (code === null) killedMidway++
  }
  const seconds = (Date.now() - t0) / 1000
  // No partial or corrupt object: every object file (not a temp file) parses.
  const list = (await ws.dacli('task', 'list', '--json')).expectExit(0).json
  const doctor = (await ws.dacli('doctor', '--json')).expectExit(0).json
  const codes = new Set<string>(doctor.findings.map((f: { code: string }) => f.code))
  const unexpected = [...codes].filter((c) => !['stale-lock', 'stale-temp', 'interrupted-move'].includes(c))
  // The next writes take over the locks and remove the temp files.
  const staleBefore = doctor.findings.filter((f: { code: string }) => f.code !== 'interrupted-move').length
  for (const t of list.tasks as { ref: string; project: string; owner: string | null }[]) {
    if (t.project !== 'crash') continue
    const as = t.owner === rw.id ? { as: rw.token } : {}
    ;(await ws.dacli('task', 'edit', t.ref, '--context', 'after the crashes', '--quiet', as)).expectExit(0)
  }
  ;(await ws.dacli('task', 'add', 'After the crashes', '--project', 'crash', '--force', '--quiet')).expectExit(0)
  ;(await ws.dacli('note', 'add', 'finding', 'After the crashes', '--project', 'crash', '--quiet')).expectExit(0)
  // An event's temp file is swept by the next event written in its folder (the read-only proposer's claims
  // were killed mid-write too), so one more proposal is part of "the next writes".
  ;(await ws.dacli('task', 'claim', 'crash/1', '--quiet', { as: ro.token })).expectExit(0)
  const after = (await ws.dacli('doctor', '--json')).expectExit(0).json
  return {
    trials,
    killed_while_working: killedMidway,
    seconds,
    // An interrupted move's older copy is announced as skipped (`interrupted-move`); it is not a broken object.
    skipped_objects: list.skipped.filter((x: { code: string }) => x.code !== 'interrupted-move').length,
    unexpected_findings: unexpected.join(',') || 'none',
    stale_findings_before_cleanup: staleBefore,
    findings_after_cleanup: after.findings.length,
    left_after_cleanup:
      after.findings.map((f: { code: string; subject: string }) => `${f.code} ${f.subject}`).join(', ') || 'none',
  }
}

/** Hostile input: every case gets the right exit code and writes nothing. */
export async function badInputCorpus(ws: Workspace): Promise<Figures> {
  ;(await ws.dacli('project', 'add', 'Bad', '--slug', 'bad')).expectExit(0)
  ;(await ws.dacli('task', 'add', 'A fine task', '--project', 'bad', '--accept', 'fine')).expectExit(0)
  const snapshot = () => ws.snapshot()
  const cases: [string, string[], number][] = [
    ['traversal slug', ['project', 'add', 'x', '--slug', '../escape'], 2],
    ['traversal project', ['task', 'add', 'x', '--project', '../../etc'], 2],
    ['traversal agent', ['agent', 'show', '../../etc/passwd'], 2],
    ['traversal note ref', ['note', 'show', '../x/y'], 2],
    ['absolute slug', ['project', 'add', 'x', '--slug', '/etc'], 2],
    ['NUL in a title', ['task', 'add', 'a\u0000b', '--project', 'bad'], 2],
    ['control character in a title', ['task', 'add', 'a\u001bb', '--project', 'bad'], 2],
    ['100 KB title through argv', ['task', 'add', 'x'.repeat(100 * 1024), '--project', 'bad'], 2],
    ['100 KB criterion', ['task', 'add', 'y', '--project', 'bad', '--accept', 'z'.repeat(100 * 1024)], 2],
    ['bad estimate', ['task', 'add', 'y', '--project', 'bad', '--estimate', 'NaN,1,2'], 2],
    ['non-integer --n', ['task', 'check', 'bad/1', '--n', '1.5'], 2],
    ['unknown status', ['task', 'list', '--status', 'closed'], 2],
    ['enormous --limit', ['task', 'list', '--limit', '99999999999999999999'], 2],
  ]
  const failures: string[] = []
  for (const [name, argv, code] of cases) {
    const before = snapshot()
    const r = await ws.dacli(...argv, '--json')
    let envelope = false
    try {
      envelope = r.stdout === '' && r.error.schema === 'error/v1' && r.error.exit_code === code
    } catch {
      envelope = false
    }
    if (r.code !== code || !envelope) failures.push(`${name}: exit ${r.code}`)
    const after = snapshot()
    if (JSON.stringify([...after]) !== JSON.stringify([...before])) failures.push(`${name}: the workspace changed`)
  }
  // Hand-written hostile files: a 1 MB title, invalid UTF-8, malformed YAML, links out of the tree.
  const dir = path.join(ws.root, '.dacli', 'projects', 'bad')
  fs.writeFileSync(
    path.join(dir, 'tasks', 'open', '050-huge.md'),
    `---\nid: t-01KBX3Q5M7E2RJ4T8W6YVZ0N1P\nkind: task\n---\n# ${'T'.repeat(1024 * 1024)}\n`,
  )
  fs.writeFileSync(
    path.join(dir, 'tasks', 'open', '051-bytes.md'),
    Buffer.concat([
      Buffer.from('---\nid: t-01KBX3Q5M7E2RJ4T8W6YVZ0N1Q\nkind: task\n---\n# bad '),
      Buffer.from([0xff, 0xfe, 0xc3]),
      Buffer.from('\n'),
    ]),
  )
  fs.writeFileSync(path.join(dir, 'tasks', 'open', '052-yaml.md'), '---\nid: [unclosed\nkind: task\n---\n# x\n')
  const outside = tempDir('dacli-outside-')
  const secret = 'SECRET-OUTSIDE-THE-WORKSPACE'
  fs.mkdirSync(path.join(outside, 'tasks', 'open'), { recursive: true })
  fs.writeFileSync(path.join(outside, 'project.md'), `---\nid: p-evil\nkind: project\n---\n# ${secret}\n`)
  fs.writeFileSync(
    path.join(outside, 'tasks', 'open', '001-evil.md'),
    `---\nid: t-01KBX3Q5M7E2RJ4T8W6YVZ0N1R\nkind: task\n---\n# ${secret}\n`,
  )
  fs.symlinkSync(outside, path.join(ws.root, '.dacli', 'projects', 'evil'))
  fs.symlinkSync(path.join(outside, 'tasks', 'open', '001-evil.md'), path.join(dir, 'tasks', 'open', '053-link.md'))
  fs.symlinkSync(path.join(outside, 'project.md'), path.join(ws.root, '.dacli', 'agents', 'a-evil.md'))
  let leaked = false
  for (const argv of [
    ['task', 'list'],
    ['project', 'list'],
    ['status'],
    ['overview'],
    ['doctor'],
    ['agent', 'list', '--all'],
    ['next'],
    ['lint'],
    ['task', 'show', 'bad/050'],
  ]) {
    const r = await ws.dacli(...argv, '--json')
    if (r.code !== 0) failures.push(`${argv.join(' ')} with hostile files: exit ${r.code} ${r.stderr.slice(0, 200)}`)
    if (`${r.stdout}${r.stderr}`.includes(secret)) leaked = true
  }
  const list = (await ws.dacli('task', 'list', '--project', 'bad', '--json')).json
  const skippedPaths = list.skipped.map((s: { path: string }) => s.path)
  for (const p of ['052-yaml.md', '053-link.md'])
    if (!skippedPaths.some((s: string) => s.endsWith(p))) failures.push(`${p} was not reported as skipped`)
  return {
    cases: cases.length,
    failures: failures.join(' | ') || 'none',
    read_outside_the_workspace: leaked,
    huge_title_listed: list.tasks.some((t: { seq: number }) => t.seq === 50),
  }
}
