// Paired measurement: every run of a command is alternated with a run of
// `node -e 0` (the floor), so each figure is a ratio to the floor measured at the
// same moment on the same (possibly busy) machine. Wall time decides the targets;
// CPU time (user + sys) and peak memory are reported beside it.

import { spawnSync } from 'node:child_process'

const TIME = '/usr/bin/time'

/** One run: wall ms (from the parent), cpu ms and peak RSS in KiB (from GNU time, when present). */
export function runOnce(argv, opts = {}) {
  const useTime = opts.time !== false && haveTime()
  const cmd = useTime ? TIME : argv[0]
  const args = useTime ? ['-f', '%U %S %M', ...argv] : argv.slice(1)
  const t0 = process.hrtime.bigint()
  const r = spawnSync(cmd, args, {
    cwd: opts.cwd,
    env: opts.env,
    encoding: 'utf8',
    input: opts.input,
    maxBuffer: 256 * 1024 * 1024,
  })
  const wall = Number(process.hrtime.bigint() - t0) / 1e6
  let cpu = null
  let rss = null
  if (useTime) {
    const last = r.stderr.trimEnd().split('\n').pop() ?? ''
    const m = /^([\d.]+) ([\d.]+) (\d+)$/.exec(last)
    if (m) {
      cpu = (Number(m[1]) + Number(m[2])) * 1000
      rss = Number(m[3])
    }
  }
  return { wall, cpu, rss, status: r.status, stdout: r.stdout, stderr: r.stderr }
}

let timeChecked = null
function haveTime() {
  timeChecked ??= spawnSync(TIME, ['-f', '%U', 'true']).status === 0
  return timeChecked
}

export const median = (xs) => {
  const s = xs.filter((x) => x !== null).sort((a, b) => a - b)
  if (s.length === 0) return null
  const mid = Math.floor(s.length / 2)
  return s.length % 2 ? s[mid] : (s[mid - 1] + s[mid]) / 2
}

/**
 * Measure `argv` against the floor: `warmup` unmeasured pairs, then `runs` pairs.
 * `setup` runs before each measured command run (not timed), e.g. to reset state.
 */
export function paired(argv, { cwd, env, runs = 7, warmup = 2, setup, check } = {}) {
  const floor = [process.execPath, '-e', '0']
  // `argv` may be a function of the run number (warm-ups get negative numbers) for commands that change state.
  const cmdOf = typeof argv === 'function' ? argv : () => argv
  for (let i = 0; i < warmup; i++) {
    runOnce(floor, { cwd, env })
    setup?.()
    runOnce(cmdOf(-1 - i), { cwd, env })
  }
  const base = []
  const cmd = []
  for (let i = 0; i < runs; i++) {
    base.push(runOnce(floor, { cwd, env }))
    setup?.()
    const r = runOnce(cmdOf(i), { cwd, env })
    if (check && !check(r))
      throw new Error(`${cmdOf(i).join(' ')} failed (exit ${r.status}): ${r.stderr.slice(0, 500)}`)
    cmd.push(r)
  }
  const ratios = cmd.map((r, i) => r.wall / base[i].wall)
  const cpuRatios = cmd.map((r, i) => (r.cpu !== null && base[i].cpu ? r.cpu / base[i].cpu : null))
  return {
    runs,
    floor_ms: round(median(base.map((b) => b.wall))),
    median_ms: round(median(cmd.map((r) => r.wall))),
    ratio: round(median(ratios), 2),
    cpu_ratio: round(median(cpuRatios), 2),
    peak_rss_kib: median(cmd.map((r) => r.rss)),
  }
}

const round = (n, d = 1) => (n === null ? null : Math.round(n * 10 ** d) / 10 ** d)
