// `npm run demo`: a narrated tour of dacli in a throwaway git repository.
// It runs the built bin exactly as a user would and prints every command first.

import { execFileSync, spawnSync } from 'node:child_process'
import { mkdtempSync, realpathSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'

const bin = join(dirname(fileURLToPath(import.meta.url)), '..', 'build', 'dacli.js')
const dir = realpathSync(mkdtempSync(join(tmpdir(), 'dacli-demo-')))
const env = {
  ...process.env,
  GIT_AUTHOR_NAME: 'Demo',
  GIT_AUTHOR_EMAIL: 'demo@example.invalid',
  GIT_COMMITTER_NAME: 'Demo',
  GIT_COMMITTER_EMAIL: 'demo@example.invalid',
}
delete env.DACLI_AGENT

const bold = (s) => (process.stdout.isTTY && !process.env.NO_COLOR ? `\u001b[1m${s}\u001b[22m` : s)
const say = (text) => console.log(`\n${bold(`# ${text}`)}`)
const quote = (a) => (/^[\w./:@=,-]+$/.test(a) ? a : JSON.stringify(a))

function dacli(...args) {
  console.log(`$ dacli ${args.map(quote).join(' ')}`)
  const r = spawnSync(process.execPath, [bin, ...args], { cwd: dir, env, encoding: 'utf8' })
  process.stdout.write(r.stdout)
  process.stdout.write(r.stderr)
  console.log(`(exit ${r.status})`)
  return r
}

/** A step the story depends on: it must end with `code`, or the demo stops (exit 1) saying which step broke. */
function must(code, ...args) {
  const r = dacli(...args)
  if (r.status !== code) throw new Error(`demo step \`dacli ${args.join(' ')}\` exited ${r.status}, expected ${code}`)
  return r
}

/** `git` in the demo repository (or a folder in it), shown like a dacli step. */
function gitIn(cwd, ...args) {
  console.log(`$ git ${args.map(quote).join(' ')}`)
  process.stdout.write(execFileSync('git', args, { cwd, env, encoding: 'utf8' }))
}

try {
  say(`A throwaway git repository at ${dir}`)
  execFileSync('git', ['init', '-q', '-b', 'main'], { cwd: dir, env })

  say('Create the workspace: .dacli/ at the repository root, committed with the code')
  dacli('init', '--name', 'demo')

  say('A project to hold the work')
  dacli(
    'project',
    'add',
    'Ledger write path',
    '--slug',
    'ledger',
    '--goal',
    'Reconciliation stops diverging at month end',
  )

  say('Tasks with acceptance criteria, MoSCoW priorities and three-point estimates (optimistic,probable,pessimistic)')
  dacli(
    'task',
    'add',
    'Audit every write path',
    '--project',
    'ledger',
    '--priority',
    'must',
    '--estimate',
    '1,2,4',
    '--accept',
    'Every write path is listed with its owner',
  )
  dacli(
    'task',
    'add',
    'Add the ledger write shim',
    '--project',
    'ledger',
    '--priority',
    'must',
    '--estimate',
    '2,5,14',
    '--accept',
    'Shim covers the nightly batch path',
    '--accept',
    'Reconciliation suite green',
    '--so-that',
    'reconciliation stops diverging at month end',
    '--depends-on',
    'ledger/1',
  )
  dacli(
    'task',
    'add',
    'Dashboard for drift',
    '--project',
    'ledger',
    '--priority',
    'could',
    '--estimate',
    '1,3,8',
    '--accept',
    'Drift per day is charted',
  )

  say('A near-duplicate is refused (exit 3) and names its twin; --force would override')
  dacli('task', 'add', 'ledger write shim', '--project', 'ledger')

  say('The list, then one task in full (its dependency resolved with its status)')
  dacli('task', 'list', '--project', 'ledger')
  dacli('task', 'show', 'ledger/2')

  say('Machines get one JSON document with a schema id, and typed errors with exit codes')
  dacli('task', 'list', '--status', 'open', '--limit', '1', '--json')
  dacli('task', 'show', 'ledger/9', '--json')

  say('Where things stand, and what to start next (MoSCoW, then critical-path slack)')
  dacli('overview')
  dacli('next')
  dacli('critical-path', '--project', 'ledger')
  dacli('critical-path', '--project', 'ledger', '--format', 'mermaid')

  say('Parallel critical work stays parallel: the critical tasks form a graph, not a chain; wont is out of the plan')
  dacli('project', 'add', 'Calculator', '--slug', 'calc')
  dacli('task', 'add', 'Alpha', '--project', 'calc', '--priority', 'must', '--estimate', '1,1,1', '--accept', 'a')
  for (const t of ['Bravo', 'Charlie'])
    dacli(
      'task',
      'add',
      t,
      '--project',
      'calc',
      '--priority',
      'must',
      '--estimate',
      '2,2,2',
      '--accept',
      'b',
      '--depends-on',
      'calc/1',
    )
  dacli(
    'task',
    'add',
    'Delta',
    '--project',
    'calc',
    '--estimate',
    '1,1,1',
    '--accept',
    'd',
    '--depends-on',
    'calc/2',
    '--depends-on',
    'calc/3',
  )
  dacli(
    'task',
    'add',
    'Port to COBOL',
    '--project',
    'calc',
    '--priority',
    'wont',
    '--estimate',
    '20,20,20',
    '--accept',
    'c',
  )
  dacli('critical-path', '--project', 'calc')

  say('Readiness per link type: SS waits until its predecessors have started; FF never holds a start')
  dacli(
    'task',
    'add',
    'Pair on the parser',
    '--project',
    'calc',
    '--estimate',
    '1,2,3',
    '--accept',
    'p',
    '--depends-on',
    'calc/2:SS',
    '--depends-on',
    'calc/3:SS',
  )
  dacli(
    'task',
    'add',
    'Write the user guide',
    '--project',
    'calc',
    '--estimate',
    '1,2,3',
    '--accept',
    'g',
    '--depends-on',
    'calc/4:FF',
  )
  dacli('next', '--project', 'calc', '--parallel', '5')

  say('A blocked task keeps its place in the schedule, marked, and what depends on it stays behind it')
  dacli('task', 'block', 'calc/1', '--why', 'waiting for the number format decision')
  dacli('critical-path', '--project', 'calc')

  say('An agent works a task: a read-write identity, a claim with a lease, criteria proven by a command')
  const spawned = spawnSync(process.execPath, [bin, 'agent', 'spawn', '--role', 'implementer', '--grant', 'rw'], {
    cwd: dir,
    env,
    encoding: 'utf8',
  })
  const token = spawned.stdout.trim()
  console.log('$ export DACLI_AGENT=$(dacli agent spawn --role implementer --grant rw)')
  process.stdout.write(spawned.stderr)
  env.DACLI_AGENT = token
  dacli('whoami')
  dacli('context', 'ledger/1', '--budget', '400')
  dacli('task', 'claim', 'ledger/1', '--lease', '2h')
  dacli('task', 'done', 'ledger/1')
  dacli('task', 'check', 'ledger/1', '--n', '1', '--verify', 'test -d .dacli')
  dacli(
    'note',
    'add',
    'decision',
    'Audit by grepping the write calls',
    '--project',
    'ledger',
    '--about',
    'ledger/1',
    '--rejected',
    'reading every module by hand',
    '--because',
    'faster and repeatable',
  )
  dacli('task', 'done', 'ledger/1')
  dacli('task', 'claim', 'ledger/2', '--lease', '2h')
  const agentId = JSON.parse(
    spawnSync(process.execPath, [bin, 'whoami', '--json'], { cwd: dir, env, encoding: 'utf8' }).stdout,
  ).id
  delete env.DACLI_AGENT
  dacli('next')

  say('Retiring an identity that still holds work is refused (exit 3, naming it) until the work is handed back')
  dacli('agent', 'retire', agentId)
  dacli('agent', 'retire', agentId, '--release')

  say('Titles that name different things are different tasks; the same words retyped are still refused (exit 3)')
  dacli('task', 'add', 'Add modulo function', '--project', 'calc', '--accept', 'mod of negatives is defined')
  dacli('task', 'add', 'Add power function', '--project', 'calc', '--accept', 'pow handles 0^0')
  dacli('task', 'add', 'add power functions', '--project', 'calc')

  say('Closing without --verify is recorded as attested, not verified; reopening gives the task back to the pool')
  dacli('task', 'claim', 'calc/8')
  dacli('accept', 'calc/8')
  dacli('task', 'reopen', 'calc/8', '--reason', 'negative operands were not covered')
  dacli('task', 'show', 'calc/8')

  say('A removed task is removed everywhere: its status, lists, show, and every other command')
  dacli('task', 'rm', 'calc/9')
  dacli('task', 'list', '--project', 'calc', '--status', 'removed')
  dacli('task', 'claim', 'calc/9')

  say('A mistyped command gets complete command lines that exist; a bad value names the allowed set')
  dacli('tsak', 'ledger/2')
  dacli('list')
  dacli('task', 'list', '--status', 'closed', '--json')

  say('The loop: an agent that is stuck asks a person instead of guessing; work counts when it has landed')
  const cursor = JSON.parse(
    spawnSync(process.execPath, [bin, 'watch', '--json', '--timeout', '0'], { cwd: dir, env, encoding: 'utf8' }).stdout,
  ).cursor
  execFileSync('git', ['commit', '-q', '--allow-empty', '-m', 'the code so far'], { cwd: dir, env })
  env.DACLI_AGENT = spawnSync(process.execPath, [bin, 'agent', 'spawn', '--role', 'implementer', '--grant', 'rw'], {
    cwd: dir,
    env,
    encoding: 'utf8',
  }).stdout.trim()
  console.log('$ export DACLI_AGENT=$(dacli agent spawn --role implementer --grant rw)   # a second agent')
  must(0, 'task', 'claim', 'ledger/2', '--lease', '2h', '--worktree')
  const asked = must(
    0,
    'ask',
    'Put the shim at the ORM layer or at the database driver?',
    '--about',
    'ledger/2',
    '--need',
    'where the shim goes: the two lead to different work',
    '--json',
  )
  const qid = JSON.parse(asked.stdout).id

  say('The task waits on the question: next will not offer it, and explain says who moves it and how')
  must(0, 'explain', 'ledger/2')
  const agentToken = env.DACLI_AGENT
  delete env.DACLI_AGENT

  say('A person sees what waits for them and answers it as a decision (with what was rejected)')
  must(0, 'threads', '--open')
  must(
    0,
    'answer',
    qid,
    'At the database driver',
    '--as',
    'decision',
    '--rejected',
    'at the ORM layer',
    '--because',
    'the nightly batch bypasses the ORM',
  )

  say('The task is the agent’s again, and its brief carries the answer')
  env.DACLI_AGENT = agentToken
  must(0, 'explain', 'ledger/2')
  must(0, 'context', 'ledger/2', '--budget', '600')

  say('The agent commits on the task’s branch and proves the criteria; closing before the branch lands is refused')
  const wt = JSON.parse(
    spawnSync(process.execPath, [bin, 'task', 'show', 'ledger/2', '--json'], { cwd: dir, env, encoding: 'utf8' })
      .stdout,
  ).worktree
  const wtDir = join(dir, wt.path)
  console.log(`$ cd ${wt.path}   # the task's worktree, on branch ${wt.branch}`)
  execFileSync('sh', ['-c', 'echo "driver-level shim" > shim.txt'], { cwd: wtDir })
  gitIn(wtDir, 'add', 'shim.txt')
  gitIn(wtDir, 'commit', '-q', '-m', 'Add the write shim at the driver')
  must(0, 'task', 'check', 'ledger/2', '--all', '--verify', `git cat-file -e ${wt.branch}:shim.txt`)
  must(3, 'task', 'done', 'ledger/2', '--tokens', '41200')

  say('A person merges the branch into main; now the task closes, and its log says where it landed')
  console.log('$ cd -   # back in the main worktree, on main')
  gitIn(dir, 'merge', '-q', '--no-edit', wt.branch)
  must(0, 'task', 'done', 'ledger/2', '--tokens', '41200')
  must(0, 'explain', 'ledger/2')
  delete env.DACLI_AGENT

  say('Everything that happened in the loop, as `watch` streamed it (resumed from a cursor taken before)')
  must(0, 'watch', '--since', cursor, '--timeout', '0', '--project', 'ledger')

  say('Delivery, measured from what the store recorded (a measure with no samples is null, never 0)')
  must(0, 'metrics', '--project', 'ledger')

  say(`The files are plain markdown a person can read, grep and hand-edit: ${join(dir, '.dacli')}`)
  console.log(
    execFileSync('find', ['.dacli', '-name', '*.md', '-not', '-path', '*/agents/*'], {
      cwd: dir,
      encoding: 'utf8',
    }).trim(),
  )
  say('Done. The demo repository is removed; run `dacli help` to explore.')
} finally {
  rmSync(dir, { recursive: true, force: true })
}
