// Under --json a failure's stderr is exactly one error envelope (contract §4), even when the command warned first;
// a success keeps its warnings, written after the document.

import { describe, expect, test } from 'vitest'
import { nodeSystem } from '../../cmd/system.js'
import { UsageError } from '../base/errors.js'
import { defineCommand, entriesOf } from './command.js'
import { bool } from './flags.js'
import { invoke } from './invoke.js'
import { bufferIO } from './io.js'

const warner = defineCommand({
  path: 'warner',
  summary: 'warns, then fails or succeeds',
  args: [],
  flags: { fail: bool('fail after the warning') },
  json: 'warner/v1',
  mutates: false,
  standalone: true,
  async run(ctx, input) {
    ctx.notes.warn('skipped something on the way')
    if (input.flags.fail === true) throw new UsageError('it failed after warning')
    return { data: { schema: 'warner/v1', ok: true } }
  },
})

async function run(argv: string[]) {
  const [entry] = entriesOf([warner])
  if (entry === undefined) throw new Error('no entry')
  const io = bufferIO()
  const services = {
    system: nodeSystem,
    store: async () => {
      throw new Error('not used')
    },
    documents: async () => {
      throw new Error('not used')
    },
  }
  const outcome = await invoke(entry, argv, {
    io,
    env: {},
    cwd: '/nonexistent',
    now: () => new Date(0),
    services,
    table: [],
  })
  return { code: outcome.exitCode, out: io.out(), err: io.err() }
}

describe('notes under --json', () => {
  test('a failure after a warning: stderr is the one error envelope, nothing else', async () => {
    const r = await run(['--fail', '--json'])
    expect(r.code).toBe(2)
    expect(r.out).toBe('')
    expect(r.err.endsWith('\n')).toBe(true)
    expect(r.err.trimEnd().split('\n')).toHaveLength(1)
    expect(JSON.parse(r.err)).toMatchObject({ schema: 'error/v1', kind: 'usage', message: 'it failed after warning' })
  })

  test('a success keeps its warning (after the document); without --json the warning comes as it happens', async () => {
    const ok = await run(['--json'])
    expect(ok.code).toBe(0)
    expect(JSON.parse(ok.out)).toEqual({ schema: 'warner/v1', ok: true })
    expect(ok.err).toBe('warning: skipped something on the way\n')
    const human = await run(['--fail'])
    expect(human.code).toBe(2)
    expect(human.err.startsWith('warning: skipped something on the way\n')).toBe(true)
  })
})
