// The ledger backlog the insight, doctor, lint and context tests start from: project ledger ("No month-end drift")
// with 1 "Audit write paths" (accept "listed") and 2 "Build the shim" (accept "batch covered", after 1).
// `ledgerPlan` sizes and prioritises them (1 must 1,2,3; 2 must 3,4,5) and adds 3 "Chart drift" (could,
// 1,1,1) and 4 "Write notes" (should, 1,2,3, FF after 2), each with one acceptance criterion.

import { type Workspace, workspace } from './ws.js'

/** Project ledger with its first two tasks; `sized` adds their priority and estimate, `shim` more flags for task 2. */
export async function seedLedger(ws: Workspace, opts: { sized?: boolean; shim?: readonly string[] } = {}) {
  const sized = (estimate: string) => (opts.sized ? ['--priority', 'must', '--estimate', estimate] : [])
  await ws.ok('project', 'add', 'Ledger', '--slug', 'ledger', '--goal', 'No month-end drift')
  await ws.ok('task', 'add', 'Audit write paths', '--project', 'ledger', ...sized('1,2,3'), '--accept', 'listed')
  await ws.ok(
    'task',
    'add',
    'Build the shim',
    '--project',
    'ledger',
    ...sized('3,4,5'),
    '--accept',
    'batch covered',
    '--depends-on',
    '1',
    ...(opts.shim ?? []),
  )
}

/** A new workspace holding the sized four-task plan. */
export async function ledgerPlan(): Promise<Workspace> {
  const ws = await workspace()
  await seedLedger(ws, { sized: true })
  const add = (title: string, ...flags: string[]) => ws.ok('task', 'add', title, '--project', 'ledger', ...flags)
  await add('Chart drift', '--priority', 'could', '--estimate', '1,1,1', '--accept', 'charted')
  await add(
    'Write notes',
    '--priority',
    'should',
    '--estimate',
    '1,2,3',
    '--accept',
    'published',
    '--depends-on',
    '2:FF',
  )
  return ws
}
