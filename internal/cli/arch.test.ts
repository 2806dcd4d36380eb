// The architecture's rules (ARCHITECTURE.md), enforced over the import graph esbuild resolves, the semantic
// lint rules in biome.json, and the built bundle (internal/testkit/arch.ts says how). The checks are shown to
// bite: a temporary copy of the tree with a planted violation of each kind must be reported, file by file.

import { spawnSync } from 'node:child_process'
import * as fs from 'node:fs'
import * as path from 'node:path'
import { describe, expect, test } from 'vitest'
import { checkArchitecture, type Violation } from '../testkit/arch.js'
import { BIN, baseEnv, REPO_ROOT, tempDir, workspace } from '../testkit/ws.js'

const byRule = (vs: readonly Violation[]) => {
  const out: Record<string, string[]> = {}
  for (const v of vs) {
    const list = out[v.rule] ?? []
    list.push(`${v.file}: ${v.detail}`)
    out[v.rule] = list
  }
  return out
}

describe('architecture rules', () => {
  test('the tree keeps every rule (import graph, lint rules)', async () => {
    expect(byRule(await checkArchitecture(REPO_ROOT))).toEqual({})
  })

  test('7. the bundled entry chunk statically reaches only node:*, the kernel, the parser and the table', () => {
    const metaFile = path.join(REPO_ROOT, 'build', 'meta.json')
    expect(fs.existsSync(metaFile), 'run `npm run build` first (npm test does)').toBe(true)
    const meta = JSON.parse(fs.readFileSync(metaFile, 'utf8')) as {
      outputs: Record<
        string,
        { inputs: Record<string, unknown>; imports: { path: string; kind: string; external?: boolean }[] }
      >
    }
    const inputs = new Set<string>()
    const externals = new Set<string>()
    const visit = (out: string, seen: Set<string>) => {
      if (seen.has(out)) return
      seen.add(out)
      const o = meta.outputs[out]
      if (!o) return
      for (const i of Object.keys(o.inputs)) inputs.add(i)
      for (const imp of o.imports) {
        if (imp.kind === 'dynamic-import') continue
        if (imp.external) externals.add(imp.path)
        else visit(imp.path, seen)
      }
    }
    visit('build/dacli.js', new Set())
    const allowed =
      /^(cmd\/(dacli|system)\.ts|internal\/clikit\/[a-z]+\.ts|internal\/cli\/(main|manifest\.gen)\.ts|internal\/runtime\/services\.ts|internal\/store\/errors\.ts|internal\/base\/[a-z]+\.ts)$/
    expect([...inputs].filter((i) => !allowed.test(i))).toEqual([])
    expect([...externals].filter((e) => !e.startsWith('node:'))).toEqual([])
  })

  test('3. --version and help load three modules of the bundle (bin, kernel, meta group) and no store code', () => {
    const meta = JSON.parse(fs.readFileSync(path.join(REPO_ROOT, 'build', 'meta.json'), 'utf8')) as {
      outputs: Record<string, { inputs: Record<string, unknown> }>
    }
    for (const argv of [['--version'], ['version'], ['help'], ['help', 'task']]) {
      const r = spawnSync(process.execPath, [BIN, ...argv], {
        cwd: tempDir(),
        env: { PATH: process.env.PATH, NODE_DEBUG: 'esm', NO_COLOR: '1' },
        encoding: 'utf8',
      })
      expect(r.status, r.stderr).toBe(0)
      // Node's loader logs each ES module it compiles; the bundle's are the files under build/.
      const loaded = [...new Set(r.stderr.match(/(?<=Storing file:\/\/)\S+/g) ?? [])].map((f) =>
        path.relative(REPO_ROOT, f).split(path.sep).join('/'),
      )
      expect(loaded.length, loaded.join('\n')).toBe(3)
      const inputs = loaded.flatMap((f) => Object.keys(meta.outputs[f]?.inputs ?? {}))
      expect(inputs.filter((i) => i.startsWith('internal/store/') && i !== 'internal/store/errors.ts')).toEqual([])
    }
  })

  test('3. the reads agents run most (--json) load four modules of the bundle; task add seven, a claim nine', async () => {
    const ws = await workspace()
    ;(await ws.dacli('project', 'add', 'Alpha', '--slug', 'alpha')).expectExit(0)
    ;(await ws.dacli('task', 'add', 'First thing', '--project', 'alpha', '--accept', 'it works')).expectExit(0)
    const modules = (argv: readonly string[]) => {
      const r = spawnSync(process.execPath, [BIN, ...argv], {
        cwd: ws.root,
        env: { ...baseEnv(), NODE_DEBUG: 'esm' },
        encoding: 'utf8',
      })
      expect(r.status, r.stderr).toBe(0)
      return new Set(r.stderr.match(/(?<=Storing file:\/\/)\S+/g) ?? []).size
    }
    for (const argv of [
      ['task', 'list', '--json'],
      ['task', 'show', 'alpha/1', '--json'],
      ['next', '--json'],
      ['critical-path', '--json'],
    ])
      expect(modules(argv), argv.join(' ')).toBe(4)
    expect(modules(['task', 'add', 'Second thing', '--project', 'alpha', '--accept', 'x'])).toBe(7)
    // A claim edits the file through the YAML library (lossless round trip): the parser's chunk and its wrapper.
    expect(modules(['task', 'claim', 'alpha/1'])).toBe(9)
  })
})

/** A violation of each kind the check must catch, as [file, source, the rule it breaks]. */
const PLANTS: [string, string, string][] = [
  // A command body that casts its input instead of declaring it (issue 17: typed inputs).
  [
    'internal/features/task/planted-cast.ts',
    [
      "import { defineCommand, optionalArg } from '../../clikit/command.js'",
      'export const planted = defineCommand({',
      "  path: 'task planted', summary: 'a planted command', args: [optionalArg('ref', 'r')], flags: {},",
      '  json: null, mutates: false,',
      '  async run(_ctx, input) {',
      '    return { data: (input.args.ref as string).length }',
      '  },',
      '})',
      '',
    ].join('\n'),
    'typed inputs',
  ],
  // The untyped accessor the typed input replaced, written again in a slice.
  [
    'internal/features/note/planted-accessor.ts',
    'export const flagNum = (input: { flags: object }, name: string) => (input.flags as Record<string, number>)[name]\n',
    'typed inputs',
  ],
  ['internal/features/insight/planted-number.ts', 'export const n = (v: unknown) => v as number\n', 'typed inputs'],
  [
    'internal/features/insight/planted-narrowing.ts',
    "export const f = (input: { flags: { format?: string } }) => input.flags.format as 'text' | 'dot'\n",
    'typed inputs',
  ],
  [
    'internal/features/task/planted-glob.ts',
    // biome-ignore lint/suspicious/noTemplateCurlyInString: the planted source holds a template literal
    'export const load = (n: string) => import(`../../gitx/${n}.js`)\n',
    'named imports',
  ],
  ['internal/features/task/planted-computed.ts', 'export const load = (m: string) => import(m)\n', 'named imports'],
  ['internal/store/planted-env.ts', 'const { env } = process\nexport const home = env.HOME\n', '4 process'],
  ['internal/features/note/planted-kill.ts', 'export const stop = (pid: number) => process.kill(pid)\n', '4 process'],
  ['internal/gitx/planted-global.ts', 'export const p = globalThis.process\n', '4 process'],
  [
    'internal/github/planted-import.ts',
    "import process from 'node:process'\nexport const pid = process.pid\n",
    '4 process',
  ],
  [
    'internal/store/planted-require.ts',
    "import { createRequire } from 'node:module'\nexport const git = createRequire(import.meta.url)('isomorphic-git')\n",
    '4 process',
  ],
  ['internal/engines/planted-fetch.ts', "export const get = () => fetch('https://example.invalid')\n", '3 engines'],
  ['internal/engines/planted-clock.ts', 'export const t = () => performance.now()\n', '3 engines'],
  ['internal/engines/planted-uuid.ts', 'export const id = () => crypto.randomUUID()\n', '3 engines'],
  ['internal/engines/planted-date.ts', 'export const now = () => new Date()\n', '3 engines'],
  [
    'internal/engines/planted-fs.ts',
    "import { readFileSync } from 'node:fs'\nexport const r = readFileSync\n",
    '3 engines',
  ],
  ['internal/engines/planted-random.ts', 'export const r = () => Math.random()\n', '3 engines'],
  ['internal/store/planted-locale.ts', "export const c = 'a'.localeCompare('b')\n", 'order'],
  [
    'internal/mcp/planted-gitx.ts',
    "import { userIdent } from '../gitx/config.js'\nexport const who = userIdent\n",
    '2 app layer',
  ],
  ['internal/cli/planted-store.ts', "export { Store } from '../store/store.js'\n", '2 app layer'],
  ['internal/features/project/planted-slice.ts', "export * from '../task/claimflags.js'\n", '1 slices'],
  ['internal/clikit/planted-engine.ts', "export { findCycle } from '../engines/cycle.js'\n", 'kernel'],
  ['internal/base/planted-leaf.ts', "export { UsageError } from '../store/errors.js'\n", 'leaves'],
  ['internal/features/record/planted-heavy.ts', "export { default as git } from 'isomorphic-git'\n", '8 heavy'],
  ['internal/features/note/planted-zod.ts', "export { documents } from './json.js'\n", '8 heavy'],
  // 9. A command not found under its name: in another family's folder; in a file named otherwise; a one-word
  // command outside its own folder.
  ['internal/features/note/planted-place.ts', command('task frob'), '9 names'],
  ['internal/features/task/frobs.ts', command('task frob-all'), '9 names'],
  ['internal/features/insight/events.ts', command('events'), '9 names'],
]

/** A command module declaring `path`. */
function command(path: string): string {
  return [
    "import { defineCommand } from '../../clikit/command.js'",
    `export const c = defineCommand({ path: '${path}', summary: 'a planted command', args: [], flags: {}, json: null, mutates: false, async run() { return { data: null, human() {} } } })`,
    '',
  ].join('\n')
}

test('each planted violation is reported, in its file, under its rule; nothing else is', async () => {
  const root = tempDir('dacli-arch-')
  for (const top of ['internal', 'cmd']) {
    fs.cpSync(path.join(REPO_ROOT, top), path.join(root, top), { recursive: true })
  }
  for (const f of ['biome.json', 'tsconfig.json']) fs.copyFileSync(path.join(REPO_ROOT, f), path.join(root, f))
  fs.cpSync(path.join(REPO_ROOT, 'lint'), path.join(root, 'lint'), { recursive: true })
  for (const [file, source] of PLANTS) fs.writeFileSync(path.join(root, file), source)
  // An existing module changed in place is seen too.
  fs.appendFileSync(path.join(root, 'internal/mcp/memory.ts'), "export { gitConfig } from '../gitx/config.js'\n")
  // And a command moved back where it was before it had a place of its own: `task log` in the record slice.
  fs.renameSync(
    path.join(root, 'internal/features/task/log.ts'),
    path.join(root, 'internal/features/record/tasklog.ts'),
  )
  const taskIndex = path.join(root, 'internal/features/task/index.ts')
  const index = fs.readFileSync(taskIndex, 'utf8')
  const without = index.replace("import { log } from './log.js'\n", '').replace(/^ {2}log,\n/m, '')
  expect(without).not.toBe(index)
  fs.writeFileSync(taskIndex, without)
  const manifestFile = path.join(root, 'internal/cli/manifest.gen.ts')
  const manifest = fs.readFileSync(manifestFile, 'utf8')
  const relocated = manifest.replace('"../features/task/log.js"', '"../features/record/tasklog.js"')
  expect(relocated).not.toBe(manifest)
  fs.writeFileSync(manifestFile, relocated)

  const found = await checkArchitecture(root)
  const missed = PLANTS.filter(([file, , rule]) => !found.some((v) => v.file === file && v.rule === rule))
  expect(missed.map(([file, , rule]) => `${rule}: ${file}`)).toEqual([])
  expect(found.some((v) => v.file === 'internal/mcp/memory.ts' && v.rule === '2 app layer')).toBe(true)
  expect(found.filter((v) => v.file === 'internal/features/record/tasklog.ts')).toEqual([
    {
      rule: '9 names',
      file: 'internal/features/record/tasklog.ts',
      detail: '`task log` belongs in internal/features/task/log.ts',
    },
  ])
  const planted = new Set([...PLANTS.map(([f]) => f), 'internal/mcp/memory.ts', 'internal/features/record/tasklog.ts'])
  expect(found.filter((v) => !planted.has(v.file))).toEqual([])
})
