// What `npm run bench` measures (quality.md, Performance): the workspace sizes, the scenarios and their
// targets, as ratios to `node -e 0`. A new scenario is one more entry here (or, for one with its own set-up,
// a block in run.mjs beside `task add` and `task claim`).

import { join } from 'node:path'
import { fileURLToPath } from 'node:url'

export const SIZES = {
  '1k': { tasks: 1000, projects: 10, tasksPerProject: 100, notes: 200, events: 100 },
  '10k': { tasks: 10000, projects: 100, tasksPerProject: 100, notes: 2000, events: 1000 },
  // The growth point: no targets, reported to show how cost grows past 10,000 tasks.
  '50k': { tasks: 50000, projects: 500, tasksPerProject: 100, notes: 10000, events: 5000 },
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
  'cold: task list --json': { '10k': 10 },
  'cold: lint': { '10k': 10 },
  'cold: next': { '10k': 10 },
  'task add (one process per task, in a row)': { '*': 1.8 },
  'task claim (7 other processes claiming)': { '1k': 2.5 },
  'task claim --remote (local bare remote)': { '-': 4 },
}

export const targetOf = (name, size) => TARGETS[name]?.[size] ?? TARGETS[name]?.['*'] ?? null

/** The file an `edited` scenario changes before every run: the first task of the first project. */
export const editedFile = (root) =>
  join(root, '.dacli', 'projects', 'proj000', 'tasks', 'open', '001-ledger-ledger-step-1-of-project-0.md')

/** A task reference in the middle of a generated workspace. */
export const someRef = (size) => `proj${String(Math.floor(SIZES[size].projects / 2)).padStart(3, '0')}/050`

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
  ]
  const cold = [
    ['cold: task list --json', ['task', 'list', '--json']],
    ['cold: lint', ['lint', '--json']],
    ['cold: next', ['next', '--json']],
    ['cold: critical-path', ['critical-path', '--json']],
    ['cold: context <ref>', ['context', ref, '--json']],
  ]
  // These run right after one task file was edited (its modification time moved before every run): the index
  // serves every file but that one, which is read and parsed again.
  const edited = [
    ['after an edit: task list --json', ['task', 'list', '--json']],
    ['after an edit: next', ['next', '--json']],
    ['after an edit: critical-path', ['critical-path', '--json']],
  ]
  // No dacli code: what the layout and the index allow on this machine (bench/floor.mjs), beside the targets.
  const reference = [
    ['reference: read every task folder, lstat every task file', floor('walk')],
    ['reference: that, plus read the index and write a list answer', floor('list')],
  ]
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
  ]
}
