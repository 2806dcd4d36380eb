// Typed command inputs: `input.args` and `input.flags` are typed from the declaration. The type half of this
// file is checked by `npm run typecheck` (each `@ts-expect-error` must be an error, or tsc fails); the run
// half drives the real parser through invoke() and checks that the values have the types the body is promised.

import { describe, expect, expectTypeOf, test } from 'vitest'
import { nodeSystem } from '../../cmd/system.js'
import { arg, type Command, defineCommand, entriesOf, optionalArg } from './command.js'
import { bool, duration, int, oneOf, str } from './flags.js'
import { invoke, type Runtime } from './invoke.js'
import { bufferIO } from './io.js'

const seen: unknown[] = []

const probe = defineCommand({
  path: 'probe',
  summary: 'records its input',
  args: [
    arg('ref', 'a reference'),
    optionalArg('other', 'maybe another'),
    { name: 'title', description: 'the rest', required: false, rest: true },
  ],
  flags: {
    project: str('a project'),
    n: int('criteria', { repeatable: true, required: true, min: 1 }),
    force: bool('do it'),
    lease: duration('how long'),
    kind: oneOf(['decision', 'finding'] as const, 'what kind'),
    tag: str('tags', { repeatable: true }),
  },
  json: null,
  mutates: false,
  standalone: true,
  mutatesWith: ['force'],
  async run(_ctx, input) {
    expectTypeOf(input.args.ref).toEqualTypeOf<string>()
    expectTypeOf(input.args.other).toEqualTypeOf<string | undefined>()
    expectTypeOf(input.args.title).toEqualTypeOf<string | undefined>()
    expectTypeOf(input.flags.project).toEqualTypeOf<string | undefined>()
    expectTypeOf(input.flags.n).toEqualTypeOf<readonly number[]>()
    expectTypeOf(input.flags.force).toEqualTypeOf<boolean | undefined>()
    expectTypeOf(input.flags.lease).toEqualTypeOf<number | undefined>()
    expectTypeOf(input.flags.kind).toEqualTypeOf<'decision' | 'finding' | undefined>()
    expectTypeOf(input.flags.tag).toEqualTypeOf<readonly string[] | undefined>()
    // @ts-expect-error a flag that is not declared does not compile
    void input.flags.projet
    // @ts-expect-error nor does an argument that is not declared
    void input.args.refs
    const neverCalled = () => {
      // @ts-expect-error flags are read-only
      input.flags.project = 'x'
    }
    void neverCalled
    seen.push({ args: input.args, flags: input.flags })
    return { data: null }
  },
})

defineCommand({
  path: 'bad',
  summary: 'a mutatesWith naming an undeclared flag does not compile',
  args: [],
  flags: { term: str('a term') },
  json: null,
  mutates: false,
  // @ts-expect-error `trem` is not a declared flag
  mutatesWith: ['trem'],
  async run() {
    return { data: null }
  },
})

function runtime(): Runtime {
  return {
    io: bufferIO(),
    env: {},
    cwd: '/nonexistent',
    now: () => new Date(0),
    services: {
      system: nodeSystem,
      store: async () => {
        throw new Error('not used')
      },
      documents: async () => {
        throw new Error('not used')
      },
    },
    table: [],
  }
}

async function run(cmd: Command, argv: string[]) {
  seen.length = 0
  const [entry] = entriesOf([cmd])
  if (entry === undefined) throw new Error('no entry')
  const outcome = await invoke(entry, argv, runtime())
  return { outcome, input: seen[0] as { args: Record<string, unknown>; flags: Record<string, unknown> } | undefined }
}

describe('typed inputs at run time', () => {
  test('each flag arrives as the type its declaration promises', async () => {
    const { outcome, input } = await run(probe, [
      'r1',
      'o1',
      'rest',
      'of',
      'it',
      '--n',
      '2',
      '--n=3',
      '--lease',
      '1h30m',
      '--kind',
      'finding',
      '--force',
      '--tag',
      'a',
    ])
    expect(outcome.exitCode).toBe(0)
    expect(input).toEqual({
      args: { ref: 'r1', other: 'o1', title: 'rest of it' },
      flags: { n: [2, 3], lease: 5_400_000, kind: 'finding', force: true, tag: ['a'] },
    })
  })

  test('a missing required flag never reaches the body (exit 2)', async () => {
    const { outcome, input } = await run(probe, ['r1'])
    expect(outcome.exitCode).toBe(2)
    expect(outcome.error?.message).toMatch(/missing required flag: --n/)
    expect(input).toBeUndefined()
  })

  test('optional arguments and flags not given are absent, not empty', async () => {
    const { input } = await run(probe, ['r1', '--n', '1'])
    expect(input).toEqual({ args: { ref: 'r1' }, flags: { n: [1] } })
    expect(Object.hasOwn(input?.flags ?? {}, 'project')).toBe(false)
  })
})
