// Golden human output: the commands people read most, in
// one workspace made to be awkward (long titles, wide characters, a title carrying
// escape sequences, a blocked task, parallel critical tasks, a failed --verify),
// at 70 and 120 columns, on a terminal (colour on, tables fitted) and piped
// (no colour, nothing cut). Files: testdata/terminal/<case>.<70|120>.<tty|pipe>.txt,
// with ESC written as `\e` so a diff is readable. Regenerate with UPDATE_GOLDEN=1
// and review the diff.

import * as fs from 'node:fs'
import * as path from 'node:path'
import { beforeAll, describe, expect, test } from 'vitest'
import { displayWidth } from '../clikit/width.js'
import { expectGolden, expectOnlyGoldens } from '../testkit/golden.js'
import { REPO_ROOT, type Run, type RunOpts, type Workspace, workspace } from '../testkit/ws.js'

const dir = path.join(REPO_ROOT, 'testdata', 'terminal')
const NOW = new Date('2026-06-01T09:00:00Z')

const cases: [string, string[]][] = [
  ['task-list', ['task', 'list']],
  ['task-list-open', ['task', 'list', '--project', 'ledger', '--status', 'open']],
  ['task-show-blocked', ['task', 'show', 'ledger/5']],
  ['task-show-verified', ['task', 'show', 'ledger/1']],
  ['task-show-hand-written', ['task', 'show', 'ledger/3']],
  ['critical-path', ['critical-path', '--project', 'ledger']],
  ['next', ['next', '--project', 'ledger']],
  ['overview', ['overview']],
  ['status', ['status']],
  ['project-list', ['project', 'list']],
  ['note-list', ['note', 'list']],
  ['risk-list', ['risk', 'list']],
  ['events-list', ['events', 'list']],
  ['agent-list', ['agent', 'list']],
  ['error-ref', ['task', 'show', 'ledger/write-shim']],
  ['error-project', ['task', 'list', '--project', 'ledgr']],
  ['error-flag-case', ['task', 'list', '--JSON']],
  [
    'error-verify',
    ['task', 'check', 'ledger/2', '--n', '1', '--verify', 'printf "compiling\\nerror: \\033[2Jboom\\n"; exit 3'],
  ],
]

/** Ids and lease suffixes are random: fixed-length stand-ins keep the columns where they were. */
function normalize(text: string, root: string): string {
  return text
    .replaceAll(root, '/ws')
    .replaceAll(path.basename(root), 'dacli-test-XXXXXX')
    .replace(/\b([tne])-[0-9A-HJKMNP-TV-Z]{26}\b/g, (_m, k: string) => `${k}-${'X'.repeat(26)}`)
    .replace(/\b(a-(?:worker|reader)-)([0-9a-z]{1,6})/g, (_m, p: string, r: string) => p + 'x'.repeat(r.length))
    .replace(/ in \d+ ?ms/g, ' in N ms')
    .replace(/\u001b/g, '\\e')
}

let ws: Workspace
let owner: { id: string; token: string }
let reader: { id: string; token: string }

beforeAll(async () => {
  ws = await workspace()
  const ok = async (...a: (string | RunOpts)[]) => {
    const last = a[a.length - 1]
    const opts = typeof last === 'object' ? last : {}
    const argv = a.filter((x): x is string => typeof x === 'string')
    return (await ws.dacli(...argv, { ...opts, now: NOW })).expectExit(0)
  }
  await ok('project', 'add', 'Ledger write path', '--slug', 'ledger', '--goal', 'Reconciliation stops diverging')
  await ok('project', 'add', 'Reporting for the finance team and the auditors', '--slug', 'reports')
  const add = (title: string, ...more: string[]) => ok('task', 'add', title, '--project', 'ledger', ...more)
  await add(
    'Audit every write path and list each with its owner, tests and risks',
    '--priority',
    'must',
    '--estimate',
    '1,2,4',
    '--accept',
    'every write path is listed',
  )
  await add(
    'Add the ledger write shim',
    '--priority',
    'must',
    '--estimate',
    '2,3,4',
    '--depends-on',
    '1',
    '--accept',
    'shim covers the nightly batch',
    '--accept',
    'reconciliation suite green',
  )
  await add(
    'Backfill the drift table',
    '--priority',
    'should',
    '--estimate',
    '2,3,4',
    '--depends-on',
    '1',
    '--accept',
    'drift rows for 90 days',
  )
  await add(
    'Dashboard for drift per day',
    '--priority',
    'could',
    '--estimate',
    '1,1,1',
    '--depends-on',
    '2',
    '--depends-on',
    '3',
    '--accept',
    'a chart',
  )
  await add(
    'Switch the nightly batch to the shim',
    '--priority',
    'must',
    '--estimate',
    '1,2,3',
    '--depends-on',
    '2',
    '--depends-on',
    '3',
    '--accept',
    'batch runs through the shim',
  )
  await ok('task', 'add', 'Quarterly numbers', '--project', 'reports', '--accept', 'numbers', '--estimate', '1,2,3')
  await ok(
    'task',
    'add',
    '帳簿の照合レポートを日本語で出す',
    '--project',
    'reports',
    '--priority',
    'could',
    '--accept',
    '日本語',
  )
  owner = await ws.agent('rw', 'worker')
  reader = await ws.agent('ro', 'reader')
  await ok('task', 'claim', 'ledger/1', { as: owner.token })
  await ok('task', 'check', 'ledger/1', '--n', '1', '--verify', 'true', { as: owner.token })
  await ok('task', 'done', 'ledger/1', { as: owner.token })
  await ok('task', 'claim', 'ledger/2', { as: owner.token })
  await ok('task', 'block', 'ledger/5', '--by', 'ledger/2', '--why', 'the shim must land first')
  await ok('task', 'done', 'reports/2', { as: reader.token })
  await ok(
    'note',
    'add',
    'decision',
    'Shim before batch',
    '--project',
    'ledger',
    '--about',
    'ledger/2',
    '--rejected',
    'a big-bang switch',
  )
  await ok('note', 'add', 'finding', 'Batch writes twice on retry', '--project', 'ledger', '--severity', 'major')
  await ok('risk', 'add', 'Batch races the shim', '--project', 'ledger', '--impact', 'high', '--likelihood', 'medium')
  // A hand-written file: its title carries a bidi override, and its criterion a screen clear and a window title (a
  // control character in a title makes the file unreadable, FORMAT.md; in other text it is shown escaped).
  const file = fs.readdirSync(path.join(ws.root, '.dacli/projects/ledger/tasks/open')).find((f) => f.startsWith('003-'))
  const rel = `.dacli/projects/ledger/tasks/open/${file}`
  ws.write(
    rel,
    ws
      .file(rel)
      .replace('# Backfill the drift table', '# Backfill drift \u202eelbat')
      .replace('drift rows for 90 days', 'drift rows \u001b]0;pwned\u0007\u001b[2Jfor 90 days'),
  )
}, 120_000)

const variants = [
  { width: 70, tty: true },
  { width: 70, tty: false },
  { width: 120, tty: true },
  { width: 120, tty: false },
] as const

describe('golden terminal output', () => {
  for (const [name, argv] of cases) {
    for (const v of variants) {
      const file = `${name}.${v.width}.${v.tty ? 'tty' : 'pipe'}.txt`
      test(file, async () => {
        const env: Record<string, string | undefined> = { COLUMNS: String(v.width), TERM: 'xterm-256color' }
        if (v.tty) env.NO_COLOR = undefined
        const as = argv[1] === 'check' ? owner.token : undefined
        const r: Run = await ws.dacli(...argv, { now: NOW, tty: v.tty, env, ...(as ? { as } : {}) })
        const text = normalize(
          `$ dacli ${argv.join(' ')}\n${r.stdout}${r.stderr === '' ? '' : `--- stderr\n${r.stderr}`}(exit ${r.code})\n`,
          ws.root,
        )
        if (v.tty) {
          // Never a line wider than the terminal, unless it ends in one word too long for any line (a path).
          for (const l of r.stdout.split('\n')) {
            const last = l.trimEnd().split(' ').at(-1) ?? ''
            expect(displayWidth(l) - (displayWidth(l) > v.width ? displayWidth(last) : 0), l).toBeLessThanOrEqual(
              v.width,
            )
          }
        } else {
          expect(r.stdout).not.toContain('\u001b')
          expect(r.stdout).not.toContain('…')
        }
        // Control characters from data never reach the terminal raw: only our own SGR colours do.
        expect(r.stdout.replace(/\u001b\[\d+m/g, '')).not.toMatch(/[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u202e]/)
        expect(r.stderr.replace(/\u001b\[\d+m/g, '')).not.toMatch(/[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u202e]/)
        expectGolden(path.join(dir, file), text)
      })
    }
  }

  test('no stale golden files', () => {
    const expected = new Set(
      cases.flatMap(([n]) => variants.map((v) => `${n}.${v.width}.${v.tty ? 'tty' : 'pipe'}.txt`)),
    )
    expectOnlyGoldens(dir, expected)
  })
})
