// What `npm run bench` measures (quality.md, Performance): the workspace sizes, the scenarios and their
// targets, as ratios to `node -e 0`. A new scenario is one more entry here (or, for one with its own set-up,
// a block in run.mjs beside `task add` and `task claim`).

import { readdirSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'

// Ten projects at every size (quality.md, issue 30): the per-project costs grow with the size, as in a real
// workspace that grows, rather than the number of projects.
export const SIZES = {
  '1k': { tasks: 1000, projects: 10, tasksPerProject: 100, notes: 200, events: 100 },
  '10k': { tasks: 10000, projects: 10, tasksPerProject: 1000, notes: 2000, events: 1000 },
  // The growth point: targets on growth only (no worse than linear from 10k).
  '100k': { tasks: 100000, projects: 10, tasksPerProject: 10000, notes: 10000, events: 5000 },
}

/** The repository the `github push --dry-run` workspaces are linked to (a private repository of the fake). */
export const BENCH_REPO = 'bench/ledger'

/** Targets by scenario and size (× `node -e 0`); a size not named has no target there. */
const TARGETS = {
  'dacli --version': { '-': 1.25 },
  'dacli help': { '-': 1.25 },
  'task show <ref>': { '10k': 1.4 },
  'task list --json': { '1k': 1.8, '10k': 3 },
  next: { '1k': 2.5, '10k': 3.5 },
  'critical-path': { '10k': 3.5 },
  'context <ref>': { '1k': 2.5, '10k': 2.5 },
  'search <query>': { '10k': 2 },
  'after an edit: task show <ref>': { '10k': 1.4 },
  'after an edit: task list --json': { '1k': 1.8, '10k': 3 },
  'after an edit: next': { '10k': 3.5 },
  'after an edit: critical-path': { '10k': 3.5 },
  'task claim (one process)': { '10k': 2 },
  'task check (one process)': { '10k': 2 },
  'task done (one process)': { '10k': 2 },
  'cold: task list --json': { '10k': 6 },
  'cold: lint': { '10k': 6 },
  'cold: next': { '10k': 6 },
  'task add (one process per task, in a row)': { '*': 1.8 },
  'task claim (7 other processes claiming)': { '1k': 2.5 },
  'task claim --remote (local bare remote)': { '-': 4 },
}

export const targetOf = (name, size) => TARGETS[name]?.[size] ?? TARGETS[name]?.['*'] ?? null

/** A task reference in the middle of a generated workspace (the one `task show` and `context` read). */
export const someRef = (size) => `proj${String(Math.floor(SIZES[size].projects / 2)).padStart(3, '0')}/050`

/**
 * The file an `edited` scenario changes before every run: the task `task show` reads (so its record is parsed
 * again), whose project every listing reads. Found by its number, whatever its slug and status folder.
 */
export function editedFile(root, size) {
  const [project, seq] = someRef(size).split('/')
  const tasks = join(root, '.dacli', 'projects', project, 'tasks')
  for (const status of ['open', 'active', 'blocked', 'done']) {
    let names = []
    try {
      names = readdirSync(join(tasks, status))
    } catch {
      continue
    }
    const hit = names.find((n) => n.startsWith(`${seq}-`))
    if (hit) return join(tasks, status, hit)
  }
  throw new Error(`no task file ${someRef(size)} under ${tasks}`)
}

/**
 * The scenarios run on one generated workspace. `cold` ones run with `.dacli/cache/` deleted before every run,
 * as in a fresh clone or a CI checkout; `edited` ones right after one task file changed (editedFile). `ws` is the workspace of the size; `gh` the workspace whose one project
 * holds every task of the size and is linked to BENCH_REPO (for `github push`), or null when GitHub is not
 * measured.
 */
export function scenariosOf(size, dacli) {
  const floor = (mode) => [process.execPath, fileURLToPath(new URL('./floor.mjs', import.meta.url)), mode]
  const ref = someRef(size)
  const warm = [
    ['task show <ref>', ['task', 'show', ref, '--json']],
    ['task list --json', ['task', 'list', '--json']],
    ['next', ['next', '--json']],
    ['critical-path', ['critical-path', '--json']],
    ['context <ref>', ['context', ref, '--json']],
    ['overview', ['overview', '--json']],
    ['search <query>', ['search', 'refund', '--json']],
  ]
  const cold = [
    ['cold: task list --json', ['task', 'list', '--json']],
    ['cold: lint', ['lint', '--json']],
    ['cold: next', ['next', '--json']],
    ['cold: critical-path', ['critical-path', '--json']],
    ['cold: context <ref>', ['context', ref, '--json']],
  ]
  // These run right after one task file was edited by hand (rewritten with its own bytes before every run, so its
  // modification and change times move): the index serves every file but that one, which is read and parsed again.
  const edited = [
    ['after an edit: task show <ref>', ['task', 'show', ref, '--json']],
    ['after an edit: task list --json', ['task', 'list', '--json']],
    ['after an edit: next', ['next', '--json']],
    ['after an edit: critical-path', ['critical-path', '--json']],
    ['after an edit: search <query>', ['search', 'refund', '--json']],
  ]
  // No dacli code: what the layout and the index allow on this machine (bench/floor.mjs), beside the targets.
  const reference = [
    ['reference: read every task folder, lstat every task file', floor('walk')],
    ['reference: that, plus read the index and write a list answer', floor('list')],
  ]
  // At 100,000 tasks (the growth point) only what quality.md asks there, and the cold runs for linearity.
  const at100k = new Set([
    'task show <ref>',
    'task list --json',
    'after an edit: task show <ref>',
    'after an edit: task list --json',
    'after an edit: next',
    'after an edit: critical-path',
    'cold: task list --json',
    'cold: lint',
    'cold: next',
    'reference: read every task folder, lstat every task file',
  ])
  const keep = (sc) => size !== '100k' || at100k.has(sc.name)
  return [
    ...warm.map(([name, argv]) => ({ name, kind: 'warm', argv: dacli(...argv), on: 'ws' })),
    ...edited.map(([name, argv]) => ({ name, kind: 'edited', argv: dacli(...argv), on: 'ws' })),
    ...reference.map(([name, argv]) => ({ name, kind: 'reference', argv, on: 'ws' })),
    ...cold.map(([name, argv]) => ({ name, kind: 'cold', argv: dacli(...argv), on: 'ws' })),
    {
      name: 'cold: github push --dry-run',
      kind: 'cold',
      argv: dacli('github', 'push', 'proj000', '--dry-run', '--json'),
      on: 'gh',
    },
  ].filter(keep)
}
