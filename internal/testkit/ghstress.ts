// The GitHub fault scenario of issue 15, sized by the caller: `npm test` runs it
// at 300 tasks (internal/features/github/chaos.test.ts), `npm run stress` at
// 1,000 (bench/stress.test.ts). A fake GitHub fails a share of all calls at
// random (500, 502, a timeout, a 429) — seeded, so a run can be replayed — and
// the push is run until it exits 0 or `maxRuns` is spent.

import { divergence, githubWorkspace, seedTasks, settle } from './ghworkspace.js'
import type { Figures } from './stress.js'

const REPO = 'acme/widgets'
const INJECTED = new Set([429, 500, 502, 504])

export async function githubChaos(o: { tasks: number; rate: number; seed: number; maxRuns: number }): Promise<Figures> {
  const t0 = Date.now()
  const w = await githubWorkspace()
  try {
    seedTasks(w.ws, 'alpha', o.tasks, { done: (seq) => seq % 7 === 0 })
    w.gh.setChaos({ rate: o.rate, seed: o.seed, holdMs: 600 })
    const env = { DACLI_GITHUB_TIMEOUT_MS: '150' }
    const exits: number[] = []
    let retried = 0
    let invalid = 0
    while (exits.length < o.maxRuns && exits.at(-1) !== 0) {
      const r = await w.run('github', 'push', 'alpha', '--json', { env })
      exits.push(r.code)
      if (r.stdout === '') invalid++
      else retried += (JSON.parse(r.stdout) as { retry: { retried: number } }).retry.retried
    }
    const calls = w.gh.calls.length
    const writes = w.gh.writes().length
    // A create per task, and a close per done task: what a push without faults sends.
    const needed = o.tasks + Math.floor(o.tasks / 7)
    const faults = w.gh.calls.filter((c) => INJECTED.has(c.status)).length
    const d = divergence(w, REPO, 'alpha')
    const wrongState = w.gh.repo(REPO).issues.filter((i) => {
      const seq = Number(/Seeded task (\d+)/.exec(i.title)?.[1])
      return i.state !== (seq % 7 === 0 ? 'closed' : 'open')
    }).length
    const settled = await settle(w, 'alpha')
    return {
      tasks: o.tasks,
      fault_rate: o.rate,
      seed: o.seed,
      runs_to_converge: exits.at(-1) === 0 ? exits.length : -1,
      exit_codes: exits,
      runs_without_a_result: invalid,
      calls,
      faults_injected: faults,
      requests_sent_again: retried,
      write_calls: writes,
      write_calls_without_faults: needed,
      writes_per_task: Math.round((writes / o.tasks) * 1000) / 1000,
      duplicates: d.duplicates.length,
      tasks_not_mapped_to_their_issue: d.mismatched.length,
      issues_in_the_wrong_state: wrongState,
      writes_once_converged: settled.writes,
      seconds: Math.round((Date.now() - t0) / 100) / 10,
    }
  } finally {
    await w.close()
  }
}
