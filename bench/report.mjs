// bench/results/latest.md from the figures run.mjs collected (also `node bench/run.mjs --report`, which
// re-renders latest.md from latest.json without measuring). bench/results/analysis.md, when present, is a
// hand-written reading of the latest figures (where the time of each missed target goes, and what would
// change it); it is appended as written.

import { existsSync, readFileSync } from 'node:fs'
import { join } from 'node:path'

/** The hand-written analysis beside the results, or null. */
export const analysisOf = (dir) =>
  existsSync(join(dir, 'analysis.md')) ? readFileSync(join(dir, 'analysis.md'), 'utf8') : null

const round = (n, d = 1) =>
  n === null || n === undefined || Number.isNaN(n) ? null : Math.round(n * 10 ** d) / 10 ** d
const x = (r) => (r === null || r === undefined ? '—' : `${r}×`)

/** A scenario's ratio in every repeat, oldest first; the last one is the run that decides. */
const spread = (s) => (s.each ?? [s]).map((r) => r.ratio ?? '—').join(' / ')

function scenarioTable(r) {
  const head = [
    `| scenario | size | ratio per run (${r.repeats} runs, oldest first) | latest | target | met | median ms | floor ms | CPU ratio | peak RSS MiB |`,
    '|---|---|---|---|---|---|---|---|---|---|',
  ]
  return [
    ...head,
    ...r.scenarios.map(
      (s) =>
        `| ${s.name} | ${s.size}${s.from ? ` (run of ${s.from.slice(0, 16).replace('T', ' ')})` : ''} | ${spread(s)} | ${x(s.ratio)} | ${s.target === null ? '—' : `≤ ${s.target}×`} | ${s.met === null ? '—' : s.met ? 'yes' : '**no**'} | ${s.median_ms} | ${s.floor_ms} | ${s.cpu_ratio ?? '—'} | ${s.peak_rss_kib === null ? '—' : (s.peak_rss_kib / 1024).toFixed(0)} |`,
    ),
  ]
}

/** The section on missed targets: the measured reason of each, from the latest run. */
function missed(r) {
  const rows = r.scenarios.filter((s) => s.met === false)
  if (rows.length === 0) {
    return ['Every target is met in the latest run.', '']
  }
  const out = [
    '## Targets not met: where the time goes',
    '',
    'Each missed scenario is traced in the same run: the chunks of the bundle it loads (as the bin names them, `NODE_DEBUG=dacli`), and the same chunks loaded through the bin’s loader with no command run (paired with `node -e 0` like everything else; our modules do no work when loaded): that prices start-up, and what is left of the ratio is the command’s own work. A CPU profile of one run names where the time goes (self time, share of the profile).',
    '',
    '| scenario | size | latest | chunks loaded | its chunks loaded, no command run | the command’s work | work growth 1k→10k | profile: top self time |',
    '|---|---|---|---|---|---|---|---|',
  ]
  for (const s of rows) {
    const d = s.diagnosis
    out.push(
      d === undefined
        ? `| ${s.name} | ${s.size} | ${x(s.ratio)} | — | — | — | — | — |`
        : d.chunks === undefined
          ? // a trace from before the bin loaded chunks itself (ES modules counted, with as many empty ones)
            `| ${s.name} | ${s.size} | ${x(s.ratio)} | ${d.modules} ES modules | — | ${x(d.code_and_work_ratio)} (with compiling) | ${d.work_growth_1k_to_10k ?? '—'} | ${profileText(d)} |`
          : `| ${s.name} | ${s.size} | ${x(s.ratio)} | ${d.chunks} | ${x(d.chunks_loaded_ratio)} | ${x(d.work_ratio)} | ${d.work_growth_1k_to_10k ?? '—'} | ${profileText(d)} |`,
    )
  }
  out.push('')
  return out
}

const profileText = (d) => (d.profile ?? []).map((p) => `${p.name} ${p.share}%`).join(', ') || '—'

/** The reference scenarios (bench/floor.mjs) beside dacli's listing, by size: the floor under the targets. */
function references(r) {
  const at = (name, size) => r.scenarios.find((s) => s.name === name && s.size === size && !s.from)
  const walk = 'reference: read every task folder, lstat every task file'
  const bare = 'reference: that, plus read the index and write a list answer'
  const sizes = ['1k', '10k', '50k'].filter((z) => at(walk, z) !== undefined)
  if (sizes.length === 0) return []
  return [
    '## What the layout allows: the same walk with no dacli code',
    '',
    'Two scenarios run no dacli code (`bench/floor.mjs`), in the same workspaces and paired with `node -e 0` like the rest. The first reads every task folder and takes one `lstat` per task file: what any answer must do, since every file is checked against the index (FORMAT.md, "The cache"), so the walk is the floor under every listing. The second adds what a listing does when it is computed: reading and parsing the index, checking each file against its entry, building one list item per task and writing the answer (a cold run, or the first after an edit, does this and more).',
    '',
    '| size | walk only | walk + index + answer per task | task list --json | target for task list |',
    '|---|---|---|---|---|',
    ...sizes.map((z) => {
      const list = at('task list --json', z)
      return `| ${z} | ${x(at(walk, z)?.ratio)} | ${x(at(bare, z)?.ratio)} | ${x(list?.ratio)} | ${list?.target == null ? '—' : `≤ ${list.target}×`} |`
    }),
    '',
  ]
}

function growthTable(r) {
  if (r.growth.length === 0) return ['not measured in this run (one size only).', '']
  const sizes = ['1k', '10k', '50k'].filter((z) => r.growth.some((g) => g.work_ms[z] !== undefined))
  return [
    'Work = median minus the floor (ms). Linear growth is ×10 from 1k to 10k tasks and ×5 from 10k to 50k; a',
    'factor well above that would be worse than linear (a bug to explain); well below it, the cost is mostly',
    'fixed (start-up) or served from the index.',
    '',
    `| scenario | ${sizes.map((z) => `work ${z}`).join(' | ')} | 1k→10k | 10k→50k | growth |`,
    `|---|${sizes.map(() => '---').join('|')}|---|---|---|`,
    ...r.growth.map(
      (g) =>
        `| ${g.name} | ${sizes.map((z) => g.work_ms[z] ?? '—').join(' | ')} | ${x(g.g10)} | ${x(g.g50)} | ${g.verdict} |`,
    ),
    '',
  ]
}

function mcpSection(r) {
  if (!r.mcp || r.mcp.error) return [`not measured: ${r.mcp?.error ?? 'skipped'}`, '']
  const l = r.mcp.latency
  const mb = (mib) => round((mib * 1024 * 1024) / 1e6)
  return [
    ...(r.mcp.from ? [`(Measured in the run of ${r.mcp.from}.)`, ''] : []),
    `Tool calls over 1,000 tasks (bench/mcp-latency.mjs, ${l.calls} read calls): median **${l.median_ms} ms**, p99 **${l.p99_ms} ms** (targets ≤ 5 / ≤ 20: ${l.pass ? 'met' : '**not met**'}); writes: median ${l.writes.median_ms} ms, p99 ${l.writes.p99_ms} ms.`,
    '',
    'Resident memory of the warm server (quality.md: ≤ 150 MB at 10,000 tasks; the server runs with no V8 flag',
    'changed), read from /proc after 200 calls (list_tasks, next_tasks, show_task, get_context in turn); the peak is',
    'the high-water mark during them.',
    '',
    '| workspace | resident MB after the calls | peak MB during them | target | met (resident) |',
    '|---|---|---|---|---|',
    ...r.mcp.memory.map((m) => {
      const target = m.target_mb ?? null
      const met = target === null ? '—' : mb(m.rss_mib) <= target ? 'yes' : '**no**'
      return `| ${m.size} | ${mb(m.rss_mib)} | ${mb(m.peak_rss_mib)} | ${target === null ? '—' : `≤ ${target}`} | ${met} |`
    }),
    '',
  ]
}

function peersTable(peers) {
  if (peers.length === 0) return ['not measured in this run (BENCH_PEERS=0 or quick mode).', '']
  const ops = ['create', 'list', 'show', 'status', 'next']
  const from = peers.find((p) => p.from)?.from
  return [
    'Each tool on the same tasks, through its own CLI, as paired ratios to `node -e 0` (lower is better).',
    '',
    ...(from ? [`(Measured in the run of ${from}.)`, ''] : []),
    `| tool | tasks | ${ops.join(' | ')} | notes |`,
    `|---|---|${ops.map(() => '---').join('|')}|---|`,
    ...peers.map(
      (p) =>
        `| ${p.name} | ${p.tasks ?? '—'} | ${ops.map((o) => (p.ratios?.[o] == null ? '—' : `${p.ratios[o]}×`)).join(' | ')} | ${p.note ?? ''} |`,
    ),
    '',
  ]
}

/**
 * How busy the machine was: its load average at the start and the end of the run, and the floor's median. Busy
 * means a 1-minute load average above the number of CPUs at either end (the suite itself keeps about one busy);
 * the floor alone does not say it, since `node -e 0` itself differs between days on the same machine (47.5 ms on
 * 2026-11-29, 62–64 ms on 2026-12-01 with nothing else running).
 */
function machineNote(r) {
  const floors = r.scenarios.filter((s) => !s.from && s.floor_ms).map((s) => s.floor_ms)
  const sorted = [...floors].sort((a, b) => a - b)
  const floor = sorted.length === 0 ? null : sorted[Math.floor(sorted.length / 2)]
  const load = (l) => (l ? `${l[0]} / ${l[1]} / ${l[2]}` : '—')
  const loads = r.machine.load_start
    ? `Load average (1 / 5 / 15 min) on ${r.machine.cpus} CPUs: ${load(r.machine.load_start)} when the run started, ${load(r.machine.load_end)} when it ended. `
    : ''
  const peak = Math.max(r.machine.load_start?.[0] ?? 0, r.machine.load_end?.[0] ?? 0)
  const busy = r.machine.load_start ? peak > r.machine.cpus : null
  const verdict =
    busy === null
      ? ''
      : busy
        ? ': **the machine was busy**, which inflates the ratios of long commands more than those of short ones (a 300 ms command is preempted more often than a 50 ms one)'
        : ': a quiet machine (the suite itself keeps about one CPU busy)'
  return [`${loads}The floor (\`node -e 0\`) had a median of ${floor ?? '—'} ms across the scenarios${verdict}.`, '']
}

export function report(r, analysis = null) {
  return [
    '# dacli benchmark',
    '',
    `Generated ${r.generated_at} on ${r.machine.cpus} CPUs, Node ${r.machine.node}. Every ratio is the median of ${r.runs} runs of the command, each paired with a run of \`node -e 0\` at the same moment (quality.md); lower is better. The whole suite ran ${r.repeats} times in a row: each scenario shows the ratio of every run, oldest first, and the latest run decides whether a target is met. Cold scenarios delete \`.dacli/cache/\` before every run, as in a fresh clone. The “after an edit” scenarios move one task file’s modification time before every run, so the index serves every file but that one.`,
    '',
    ...machineNote(r),
    ...scenarioTable(r),
    '',
    ...missed(r),
    ...references(r),
    '## Growth with the workspace',
    '',
    ...growthTable(r),
    '## MCP server (warm, stdio)',
    '',
    ...mcpSection(r),
    '## Peers, side by side',
    '',
    ...peersTable(r.peers),
    ...(analysis === null ? [] : ['', analysis.trimEnd(), '']),
  ].join('\n')
}
