// `npm run stress`: the large versions of the reliability table (quality.md).
// Skipped unless STRESS=1; `npm test` runs the small versions elsewhere.
// Figures go to bench/results/stress-latest.md.

import * as fs from 'node:fs'
import * as path from 'node:path'
import fc from 'fast-check'
import { afterAll, describe, expect, test } from 'vitest'
import { bool, parseArgv, str } from '../internal/clikit/flags.js'
import { convergenceRun, seedFromEnv, syncKills } from '../internal/testkit/convergence.js'
import { pullClaimRace, remoteClaimRace, takeoverRace, worktreeClaimRace } from '../internal/testkit/coordination.js'
import { githubChaos } from '../internal/testkit/ghstress.js'
import { gitHttpServer } from '../internal/testkit/githttp.js'
import {
  ALL_PROBES,
  claimByIdRace,
  forgedEvents,
  hostileBase,
  LINKABLE,
  linkedFolders,
  manyTraversalIds,
  recordKills,
  TRAVERSAL_IDS,
  traversalIds,
} from '../internal/testkit/hostile.js'
import { CONDITIONS, hostileTable, MORE_CONDITIONS, tableBase } from '../internal/testkit/hostiletable.js'
import { badInputCorpus, claimRace, crashTrials, type Figures, seqRace, tickRace } from '../internal/testkit/stress.js'
import { REPO_ROOT, workspace } from '../internal/testkit/ws.js'

const on = process.env.STRESS === '1'
const figures: [string, Figures][] = []

describe.skipIf(!on)('stress', () => {
  test('one winner per claim: 16 processes × 200 rounds', { timeout: 3_600_000 }, async () => {
    const f = await claimRace(await workspace(), 16, Number(process.env.STRESS_ROUNDS ?? 200))
    figures.push(['one winner per claim', f])
    expect(f.rounds_with_other_than_one_winner).toBe(0)
    expect(f.tasks_with_more_than_one_claim).toBe(0)
  })

  test('one winner across linked worktrees: 2 worktrees × 100 rounds', { timeout: 1_800_000 }, async () => {
    const f = await worktreeClaimRace(await workspace(), 100)
    figures.push(['one winner across linked worktrees', f])
    expect(f.rounds_with_other_than_one_winner).toBe(0)
    expect(f.rounds_where_worktrees_disagree).toBe(0)
  })

  test('a claim racing record pull is never lost: 50 rounds', { timeout: 1_800_000 }, async () => {
    const f = await pullClaimRace(await workspace(), 50)
    figures.push(['claim racing record pull', f])
    expect(f.claims_failed).toBe(0)
    expect(f.claims_lost).toBe(0)
  })

  test('one winner across clones over file://: 4 clones × 4 processes × 50 rounds', {
    timeout: 3_600_000,
  }, async () => {
    const f = await remoteClaimRace(await workspace(), {
      clones: 4,
      procs: 4,
      rounds: 50,
      url: (root) => `file://${root}/team.git`,
    })
    figures.push(['one winner across clones (file://)', f])
    expect(f.other_exits).toBe('none')
    expect(f.rounds_with_other_than_one_winner).toBe(0)
    expect(f.rounds_where_the_remote_disagrees).toBe(0)
  })

  test('one winner across clones over smart HTTP: 4 clones × 4 processes × 50 rounds', {
    timeout: 3_600_000,
  }, async () => {
    const servers: { close(): Promise<void> }[] = []
    try {
      const f = await remoteClaimRace(await workspace(), {
        clones: 4,
        procs: 4,
        rounds: 50,
        url: async (root) => {
          const s = await gitHttpServer(root)
          servers.push(s)
          return s.url('team.git')
        },
      })
      figures.push(['one winner across clones (smart HTTP)', f])
      expect(f.other_exits).toBe('none')
      expect(f.rounds_with_other_than_one_winner).toBe(0)
      expect(f.rounds_where_the_remote_disagrees).toBe(0)
    } finally {
      for (const s of servers) await s.close()
    }
  })

  test.each([
    ['ignored', 'file', 'disjoint', 'local'],
    ['ignored', 'file', 'contended', 'local'],
    ['committed', 'file', 'contended', 'local'],
    ['committed', 'http', 'contended', 'remote'],
  ] as const)(
    'convergence: 3 clones × 50 rounds, .dacli/ %s, over %s, %s changes, %s claims',
    {
      timeout: 3_600_000,
    },
    async (workflow, transport, mode, claims) => {
      const arbiter = claims === 'remote'
      const {
        seed,
        figures: f,
        failures,
      } = await convergenceRun({
        seed: seedFromEnv(),
        rounds: 50,
        workflow,
        transport,
        mode,
        arbiter,
      })
      figures.push([`convergence (${workflow}, ${transport}, ${mode}, ${claims} claims)`, f])
      expect(failures, `seed ${seed}`).toEqual([])
      expect(f).toMatchObject({
        files_differing_between_clones: 0,
        tasks_lost: 0,
        tasks_duplicated: 0,
        claims_won_while_another_clone_held: 0,
      })
    },
  )

  test('record sync killed with SIGKILL at random points: 50 trials', { timeout: 3_600_000 }, async () => {
    const { seed, figures: f, failures } = await syncKills({ trials: 50, seed: seedFromEnv() })
    figures.push(['record sync killed at random points', f])
    expect(failures, `seed ${seed}`).toEqual([])
    expect(f.files_differing_at_the_end).toBe(0)
  })

  test('expired-lease takeover with two takers: 20 rounds', { timeout: 1_800_000 }, async () => {
    const f = await takeoverRace(await workspace(), 20)
    figures.push(['expired-lease takeover, two takers', f])
    expect(f.rounds_with_other_than_one_winner).toBe(0)
  })

  test('no lost sequence number: 8 processes × 50 adds', { timeout: 1_800_000 }, async () => {
    const f = await seqRace(await workspace(), 8, 50)
    figures.push(['no lost sequence number', f])
    expect(f).toMatchObject({ failed: 0, tasks: 400, distinct_numbers: 400 })
  })

  test('no lost tick: 12 processes × 20 rounds', { timeout: 1_800_000 }, async () => {
    const f = await tickRace(await workspace(), 12, 20)
    figures.push(['no lost tick', f])
    expect(f.lost_ticks).toBe(0)
  })

  test('crash safety: SIGKILL at random points, 500 write trials', { timeout: 3_600_000 }, async () => {
    const f = await crashTrials(await workspace(), 500)
    figures.push(['crash safety', f])
    expect(f.skipped_objects).toBe(0)
    expect(f.unexpected_findings).toBe('none')
    expect(f.findings_after_cleanup).toBe(0)
  })

  test('GitHub faults: 10% random faults over 1,000 tasks', { timeout: 3_600_000 }, async () => {
    const f = await githubChaos({ tasks: 1000, rate: 0.1, seed: 1000, maxRuns: 5 })
    figures.push(['GitHub faults', f])
    expect(f.runs_to_converge).toBeGreaterThanOrEqual(1)
    expect(f.runs_to_converge).toBeLessThanOrEqual(2)
    expect(f).toMatchObject({ duplicates: 0, tasks_not_mapped_to_their_issue: 0, writes_once_converged: 0 })
  })

  test('bad input corpus', { timeout: 600_000 }, async () => {
    const f = await badInputCorpus(await workspace())
    figures.push(['bad input', f])
    expect(f.failures).toBe('none')
    expect(f.read_outside_the_workspace).toBe(false)
  })

  test('hostile: 16 processes claim by id while 8 readers show it, 200 rounds', { timeout: 3_600_000 }, async () => {
    const f = await claimByIdRace(await workspace(), 16, Number(process.env.STRESS_ROUNDS ?? 200), 8)
    figures.push(['concurrency outcomes: claims by id with readers', f])
    expect(f.rounds_with_other_than_one_winner_and_all_losers_5).toBe(0)
    expect(f.failed_readers).toBe(0)
  })

  test('hostile: 200 generated traversal ids', { timeout: 1_800_000 }, async () => {
    const f = await traversalIds(await workspace(), [...TRAVERSAL_IDS, ...manyTraversalIds(200)])
    figures.push(['hostile ids', f.figures])
    expect(f.failures).toEqual([])
  })

  test('hostile: every folder under .dacli/ linked out, every mutating command', { timeout: 1_800_000 }, async () => {
    const { ws } = await hostileBase()
    const f = await linkedFolders(ws, LINKABLE, ALL_PROBES)
    figures.push(['folder links', f.figures])
    expect(f.failures).toEqual([])
  })

  test('hostile: every command of the table on a fresh copy, under each planted condition', {
    timeout: 3_600_000,
  }, async () => {
    const base = await tableBase()
    try {
      const failures: string[] = []
      for (const [name, plant] of Object.entries({ ...CONDITIONS, ...MORE_CONDITIONS })) {
        const r = await hostileTable(base, name, plant, { isolated: true })
        figures.push([`hostile table: ${name}`, r.figures])
        failures.push(...r.failures)
      }
      expect(failures).toEqual([])
    } finally {
      await base.close()
    }
  })

  test('hostile: record killed with SIGKILL while writing objects, 100 trials', { timeout: 1_800_000 }, async () => {
    const f = await recordKills(await workspace(), 100)
    figures.push(['git temp objects after killed records', f])
    expect(f.temp_objects_after_next_record).toBe(0)
    expect(f.fsck_clean).toBe(true)
  })

  test('hostile: 300 forged events', { timeout: 1_800_000 }, async () => {
    const f = await forgedEvents(await workspace(), 300)
    figures.push(['forged events', f.figures])
    expect(f.failures).toEqual([])
  })

  test('flag parser: 100,000 generated argv lists', { timeout: 600_000 }, () => {
    const specs = { name: str('x'), tag: str('x', { repeatable: true }), 'dry-run': bool('x') }
    let runs = 0
    fc.assert(
      fc.property(
        fc.array(fc.oneof(fc.string(), fc.constantFrom('--', '-h', '--name', '--tag', '--dry-run', '--x=1')), {
          maxLength: 12,
        }),
        (argv) => {
          runs++
          const r = parseArgv(argv, specs)
          for (const p of r.positionals) expect(argv).toContain(p)
        },
      ),
      { numRuns: 100_000 },
    )
    figures.push(['flag parser', { argv_lists: runs, thrown: 0 }])
  })

  afterAll(() => {
    writeResults(path.join(REPO_ROOT, 'bench', 'results', 'stress-latest.md'), figures)
  })
})

/**
 * Write the figures into the results file, section by section: a section of a test that ran is replaced, the
 * sections of tests that did not run this time (`-t` picks some) are kept as they were.
 */
function writeResults(file: string, figs: [string, Figures][]): void {
  const sections = new Map<string, string>()
  const old = fs.existsSync(file) ? fs.readFileSync(file, 'utf8') : ''
  const [head = '', ...parts] = old.split(/^(?=## )/m)
  // A file from before sections carried their own date: its one date goes into each section.
  const dated = /^Run .*$/m.exec(head)?.[0]
  for (const part of parts) {
    const [title = '', ...rest] = part.trimEnd().split('\n')
    const body = rest.join('\n')
    sections.set(title, dated !== undefined && !/^Run /m.test(body) ? `${title}\n\n${dated}\n${body}` : part.trimEnd())
  }
  for (const [name, f] of figs) {
    const rows = Object.entries(f).map(([k, v]) => `| ${k} | ${Array.isArray(v) ? v.join(', ') : String(v)} |`)
    sections.set(
      `## ${name}`,
      [`## ${name}`, '', `Run ${new Date().toISOString()}.`, '', '| figure | value |', '|---|---|', ...rows].join('\n'),
    )
  }
  const text = ['# dacli stress run', '', ...[...sections.values()].flatMap((s) => [s, ''])].join('\n')
  fs.mkdirSync(path.dirname(file), { recursive: true })
  fs.writeFileSync(file, text)
}
