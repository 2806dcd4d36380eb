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
    'Each missed scenario is traced in the same run: the chunks of the bundle it loads (as Node names them, `NODE_DEBUG=module`), and the same chunks required with no command run (paired with `node -e 0` like everything else; our modules do no work when loaded): that prices start-up, and what is left of the ratio is the command’s own work. A CPU profile of one run names where the time goes (self time, share of the profile).',
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
  const sizes = ['1k', '10k', '100k'].filter((z) => at(walk, z) !== undefined)
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
  const sizes = ['1k', '10k', '100k'].filter((z) => r.growth.some((g) => g.work_ms[z] !== undefined))
  return [
    'Work = median minus the floor (ms). Linear growth is ×10 from 1k to 10k tasks and ×10 from 10k to 100k; a',
    'factor well above that would be worse than linear (a bug to explain); well below it, the cost is mostly',
    'fixed (start-up) or served from the index.',
    '',
    `| scenario | ${sizes.map((z) => `work ${z}`).join(' | ')} | 1k→10k | 10k→100k | growth |`,
    `|---|${sizes.map(() => '---').join('|')}|---|---|---|`,
    ...r.growth.map(
      (g) =>
        `| ${g.name} | ${sizes.map((z) => g.work_ms[z] ?? '—').join(' | ')} | ${x(g.g10)} | ${x(g.g100 ?? g.g50)} | ${g.verdict} |`,
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
    'Resident memory of the warm server (quality.md: ≤ 150 MB at 10,000 tasks; started as users start it, with no',
    'node option: the server sets its own heap growth when it starts, cmd/dacli.ts `serverHeap`), read from /proc',
    'after 200 calls (list_tasks, next_tasks, show_task, get_context in turn); the peak is the high-water mark during',
    'them.',
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

/** Every target of quality.md's table (and issue 30's), one row each: the figure of the latest run and whether it is met. */
function targetsTable(r) {
  const sc = (name, size) => r.scenarios.find((s) => s.name === name && s.size === size && !s.from)
  const rows = []
  const ratio = (label, name, size) => {
    const s = sc(name, size)
    rows.push([
      label,
      s?.target == null ? '—' : `≤ ${s.target}×`,
      s ? x(s.ratio) : 'not measured',
      s?.met == null ? '—' : s.met ? 'yes' : '**no**',
    ])
  }
  ratio('`dacli --version`', 'dacli --version', '-')
  ratio('`dacli help`', 'dacli help', '-')
  ratio('`task show` @10k', 'task show <ref>', '10k')
  ratio(
    '`task add`, one process per task',
    'task add (one process per task, in a row)',
    r.scenarios.find((s) => s.name.startsWith('task add'))?.size,
  )
  ratio('`task list --json` @1k', 'task list --json', '1k')
  ratio('`task list --json` @10k', 'task list --json', '10k')
  ratio('`next` @1k', 'next', '1k')
  ratio('`next` @10k', 'next', '10k')
  ratio('`critical-path` @10k', 'critical-path', '10k')
  ratio('`context` @1k', 'context <ref>', '1k')
  ratio('`context` @10k', 'context <ref>', '10k')
  ratio('`search` @10k', 'search <query>', '10k')
  ratio('`task claim` while 7 other processes claim', 'task claim (7 other processes claiming)', '1k')
  ratio('`task claim --remote`', 'task claim --remote (local bare remote)', '-')
  ratio('after an edit: `task show` @10k', 'after an edit: task show <ref>', '10k')
  ratio('after an edit: `task list --json` @1k', 'after an edit: task list --json', '1k')
  ratio('after an edit: `task list --json` @10k', 'after an edit: task list --json', '10k')
  ratio('after an edit: `next` @10k', 'after an edit: next', '10k')
  ratio('after an edit: `critical-path` @10k', 'after an edit: critical-path', '10k')
  ratio('`task claim` @10k, one process', 'task claim (one process)', '10k')
  ratio('`task check` @10k, one process', 'task check (one process)', '10k')
  ratio('`task done` @10k, one process', 'task done (one process)', '10k')
  ratio('cold `task list --json` @10k', 'cold: task list --json', '10k')
  ratio('cold `lint` @10k', 'cold: lint', '10k')
  ratio('cold `next` @10k', 'cold: next', '10k')
  // A figure kept from an earlier run (BENCH_MERGE, BENCH_ONLY) says so, with that run's date.
  const kept = (name, size) => r.scenarios.find((s) => s.name === name && s.size === size && s.from)?.from
  const keptNote = (name) => (kept(name, '100k') ? ` (the 100k point from the run of ${kept(name, '100k')})` : '')
  for (const name of ['cold: task list --json', 'cold: lint', 'cold: next']) {
    const g = r.growth.find((x) => x.name === name)
    rows.push([
      `${name}: growth 1k → 10k → 100k`,
      'linear (× ≤ 15 a step)',
      g ? `${x(g.g10)} / ${x(g.g100)}${keptNote(name)}` : 'not measured',
      g === undefined || g.g10 === null ? '—' : g.verdict === 'linear or better' ? 'yes' : '**no**',
    ])
  }
  for (const name of ['after an edit: task list --json', 'after an edit: next', 'after an edit: task show <ref>']) {
    const s = r.scenarios.find((x) => x.name === name && x.size === '100k')
    const g = r.growth.find((x) => x.name === name)
    rows.push([
      `100,000 tasks: ${name}`,
      'reported; growth from 10k no worse than linear',
      s ? `${x(s.ratio)} (${s.median_ms} ms); growth 10k→100k ${x(g?.g100)}${keptNote(name)}` : 'not measured',
      s === undefined || g?.g100 == null ? '—' : g.g100 <= 15 ? 'yes' : '**no**',
    ])
  }
  const m = r.servers?.mcp
  if (m && !m.error) {
    rows.push([
      'MCP @10k after another process’s edit: median',
      '≤ 3 ms',
      `${m.median_ms} ms${m.ping_after_edit === undefined ? '' : ` (protocol floor, a ping after an edit: ${m.ping_after_edit.median_ms} ms)`}${m.idle_no_edit === undefined ? '' : `; the same calls after as long an idle pause and no edit: ${m.idle_no_edit.median_ms} ms`}`,
      m.median_ms <= 3 ? 'yes' : '**no**',
    ])
    rows.push([
      'MCP @10k after another process’s edit: p99',
      '≤ 20 ms',
      `${m.p99_ms} ms`,
      m.p99_ms <= 20 ? 'yes' : '**no**',
    ])
    rows.push([
      'MCP @10k: resident memory after the calls',
      '≤ 150 MB',
      `${m.rss_mb} MB (peak ${m.peak_mb})`,
      m.rss_mb <= 150 ? 'yes' : '**no**',
    ])
  } else
    rows.push([
      'MCP @10k after another process’s edit',
      'median ≤ 3 ms, p99 ≤ 20 ms, ≤ 150 MB',
      `not measured: ${m?.error ?? 'skipped'}`,
      '—',
    ])
  // The warm server's memory (bench/mcp-memory.mjs, 200 calls with no edits) is held to the same 150 MB.
  const warm = r.mcp && !r.mcp.error ? r.mcp.memory?.find((x) => x.size === '10k') : undefined
  if (warm !== undefined) {
    const mbOf = (mib) => round((mib * 1024 * 1024) / 1e6)
    rows.push([
      'MCP @10k, warm: resident memory after 200 calls',
      '≤ 150 MB',
      `${mbOf(warm.rss_mib)} MB (peak ${mbOf(warm.peak_rss_mib)})${r.mcp.from ? ` (from ${r.mcp.from})` : ''}`,
      mbOf(warm.rss_mib) <= 150 ? 'yes' : '**no**',
    ])
  }
  const b = r.servers?.board
  if (b && !b.error) {
    rows.push([
      'board @10k: a change visible on the page (median; max)',
      '≤ 500 ms',
      `${b.change_visible_median_ms} ms; ${b.change_visible_max_ms} ms`,
      b.change_visible_max_ms <= 500 ? 'yes' : '**no**',
    ])
    rows.push([
      'board @10k: first page, warm',
      '≤ 300 ms',
      `${b.first_page_warm_ms} ms`,
      b.first_page_warm_ms <= 300 ? 'yes' : '**no**',
    ])
  } else
    rows.push(['board @10k', 'change ≤ 500 ms; first page ≤ 300 ms', `not measured: ${b?.error ?? 'skipped'}`, '—'])
  const v = r.sync_visibility
  if (v && !v.error) {
    rows.push([
      `a claim in one clone visible to \`task show\` in another, both running \`record sync --watch 1s\` (${v.transport}, ${v.size}; median; max of ${v.trials})`,
      `≤ ${v.target_s} s`,
      `${v.median_s} s; ${v.max_s} s${v.from ? ` (from ${v.from})` : ''}`,
      v.met ? 'yes' : '**no**',
    ])
  } else
    rows.push([
      'a claim in one clone visible in another under `record sync --watch 1s`',
      '≤ 5 s',
      `not measured: ${v?.error ?? 'skipped'}`,
      '—',
    ])
  const p = r.pull
  if (p && !p.error) {
    rows.push([
      `a second \`github pull\` against ${p.issues.toLocaleString('en')} issues, nothing changed`,
      '≤ 3 requests',
      `${p.second.requests} (first pull: ${p.first.requests})`,
      p.met ? 'yes' : '**no**',
    ])
  } else
    rows.push([
      'a second `github pull` against 50,000 issues',
      '≤ 3 requests',
      `not measured: ${p?.error ?? 'skipped'}`,
      '—',
    ])
  return [
    '| target | wanted | latest run | met |',
    '|---|---|---|---|',
    ...rows.map((row) => `| ${row.join(' | ')} |`),
    '',
  ]
}

function serversSection(r) {
  const m = r.servers?.mcp
  const b = r.servers?.board
  const out = []
  if (m && !m.error) {
    out.push(
      `The built \`dacli mcp serve\` on the 10,000-task workspace, spoken to by the SDK's client over stdio; before each of ${m.calls} timed calls a \`dacli task edit\` in another process changed one task of the project the call reads (bench/servers.mjs). Median **${m.median_ms} ms**, p99 **${m.p99_ms} ms**; resident ${m.rss_mb} MB after the calls (peak ${m.peak_mb} MB).${m.ping_after_edit === undefined ? '' : ` The protocol's floor in the same state, an MCP \`ping\` (answered by the SDK, no dacli code) right after each of ${m.ping_after_edit.calls} more edits: median ${m.ping_after_edit.median_ms} ms, p99 ${m.ping_after_edit.p99_ms} ms (the calls' median is ${(m.median_ms / m.ping_after_edit.median_ms).toFixed(2)}× it).`}${m.idle_no_edit === undefined ? '' : ` The control: ${m.idle_no_edit.calls} calls of the same mix, each after a pause of ${m.idle_no_edit.pause_ms} ms (the median edit) with nothing edited: median ${m.idle_no_edit.median_ms} ms, p99 ${m.idle_no_edit.p99_ms} ms — what the machine's waking from an idle pause costs a call, with no change to read.`}`,
      '',
      '| tool | median ms | p99 ms |',
      '|---|---|---|',
      ...Object.entries(m.by_tool).map(([t, v]) => `| ${t} | ${v.median_ms} | ${v.p99_ms} |`),
      '',
    )
  }
  if (b && !b.error) {
    out.push(
      `\`dacli board\` on the same workspace: the first page (the page, its script and style, /api/board, /api/project/list, the first project's task list) from a warm server in a median ${b.first_page_warm_ms} ms; after each of ${b.edits} edits by another process, the page's event stream said "change" and its task list showed the new title in a median ${b.change_visible_median_ms} ms (at most ${b.change_visible_max_ms} ms).`,
      '',
    )
  }
  const p = r.pull
  if (p && !p.error) {
    out.push(
      `\`github pull --dry-run\` against the fake GitHub holding ${p.issues.toLocaleString('en')} issues: the first pull made ${p.first.requests} requests (${p.first.ms} ms); the second, with nothing changed, ${p.second.requests} (${p.second.ms} ms${p.second.same_plan ? ', the same plan' : ', **a different plan**'}); after three issues changed on GitHub, ${p.after_three_changed.requests} (${p.after_three_changed.ms} ms).`,
      '',
    )
  }
  return out.length === 0 ? ['not measured in this run.', ''] : out
}

export function report(r, analysis = null) {
  return [
    '# dacli benchmark',
    '',
    `Generated ${r.generated_at} on ${r.machine.cpus} CPUs, Node ${r.machine.node}. Every ratio is the median of ${r.runs} runs of the command, each paired with a run of \`node -e 0\` at the same moment (quality.md); lower is better. The whole suite ran ${r.repeats} times in a row: each scenario shows the ratio of every run, oldest first, and the latest run decides whether a target is met. Cold scenarios delete \`.dacli/cache/\` before every run, as in a fresh clone. The “after an edit” scenarios rewrite one task file by hand (its own bytes: its modification and change times move) before every run, so the index serves every file but that one, which is parsed again.`,
    '',
    ...machineNote(r),
    '## Every target',
    '',
    ...targetsTable(r),
    '## Every scenario',
    '',
    ...scenarioTable(r),
    '',
    ...missed(r),
    ...references(r),
    '## Growth with the workspace',
    '',
    ...growthTable(r),
    '## Servers after an edit, and github pull',
    '',
    ...serversSection(r),
    '## MCP server (warm, stdio)',
    '',
    ...mcpSection(r),
    '## Peers, side by side',
    '',
    ...peersTable(r.peers),
    ...(analysis === null ? [] : ['', analysis.trimEnd(), '']),
  ].join('\n')
}
