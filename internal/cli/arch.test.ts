// The architecture's rules (ARCHITECTURE.md), enforced over the import graph esbuild resolves, the semantic
// lint rules in biome.json, and the built bundle (internal/testkit/arch.ts says how). The checks are shown to
// bite: a temporary copy of the tree with a planted violation of each kind must be reported, file by file.

import { spawnSync } from 'node:child_process'
import * as fs from 'node:fs'
import * as path from 'node:path'
import { beforeAll, describe, expect, test } from 'vitest'
import { checkArchitecture, SLICE_LINES, sliceLines, type Violation } from '../testkit/arch.js'
import { BIN, baseEnv, REPO_ROOT, tempDir, workspace } from '../testkit/ws.js'

/** A chunk of the bundle the bin loads, as Node's own NODE_DEBUG=module names it (cmd/bin.cjs requires them). */
const CHUNK_LOADED = /(?<=MODULE \d+: load ")[^"]*[\\/]build[\\/]chunks[\\/][^"]+(?=")/g

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
    visit('build/chunks/main.js', new Set())
    const allowed =
      /^(cmd\/(dacli|system)\.ts|internal\/clikit\/[a-z]+\.ts|internal\/cli\/(main|manifest\.gen|services)\.ts|internal\/base\/[a-z]+\.ts)$/
    expect([...inputs].filter((i) => !allowed.test(i))).toEqual([])
    expect([...externals].filter((e) => !e.startsWith('node:'))).toEqual([])
  })

  test('3. --version and help load three chunks of the bundle (entry, kernel, meta group) and no store code', () => {
    const meta = JSON.parse(fs.readFileSync(path.join(REPO_ROOT, 'build', 'meta.json'), 'utf8')) as {
      outputs: Record<string, { inputs: Record<string, unknown> }>
    }
    for (const argv of [['--version'], ['version'], ['help'], ['help', 'task']]) {
      const r = spawnSync(process.execPath, [BIN, ...argv], {
        cwd: tempDir(),
        env: { PATH: process.env.PATH, NODE_DEBUG: 'module', NO_COLOR: '1' },
        encoding: 'utf8',
      })
      expect(r.status, r.stderr).toBe(0)
      // Node names each chunk of the bundle as it loads it (NODE_DEBUG=module).
      const loaded = [...new Set(r.stderr.match(CHUNK_LOADED) ?? [])].map((f) =>
        path.relative(REPO_ROOT, f).split(path.sep).join('/'),
      )
      expect(loaded.length, loaded.join('\n')).toBe(3)
      const inputs = loaded.flatMap((f) => Object.keys(meta.outputs[f]?.inputs ?? {}))
      expect(inputs.filter((i) => /^internal\/(store|format|domain|adapters)\//.test(i))).toEqual([])
    }
  })

  test('3. the reads agents run most (--json) load four chunks of the bundle; task add seven, a claim nine', async () => {
    const ws = await workspace()
    ;(await ws.dacli('project', 'add', 'Alpha', '--slug', 'alpha')).expectExit(0)
    ;(await ws.dacli('task', 'add', 'First thing', '--project', 'alpha', '--accept', 'it works')).expectExit(0)
    const modules = (argv: readonly string[]) => {
      const r = spawnSync(process.execPath, [BIN, ...argv], {
        cwd: ws.root,
        env: { ...baseEnv(), NODE_DEBUG: 'module' },
        encoding: 'utf8',
      })
      expect(r.status, r.stderr).toBe(0)
      return new Set(r.stderr.match(CHUNK_LOADED) ?? []).size
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

/**
 * A violation of each kind the check must catch: under the rule it breaks, each file (below internal/) and its
 * source. Each is its own test below, named by what it plants, and must be reported in its file under its rule.
 */
const PLANTS: Record<string, Record<string, string>> = {
  // A command body that casts its input instead of declaring it (issue 17: typed inputs); the untyped accessor the
  // typed input replaced; a bare number cast; a cast narrowing a flag.
  'typed inputs': {
    'features/task/planted-cast.ts': body('(input.args.ref as string).length'),
    'features/note/planted-accessor.ts':
      'export const flagNum = (input: { flags: object }, name: string) => (input.flags as Record<string, number>)[name]\n',
    'features/insight/planted-number.ts': 'export const n = (v: unknown) => v as number\n',
    'features/insight/planted-narrowing.ts':
      "export const f = (input: { flags: { format?: string } }) => input.flags.format as 'text' | 'dot'\n",
  },
  'named imports': {
    // biome-ignore lint/suspicious/noTemplateCurlyInString: the planted source holds a template literal
    'features/task/planted-glob.ts': 'export const load = (n: string) => import(`../../adapters/git/${n}.js`)\n',
    'features/task/planted-computed.ts': 'export const load = (m: string) => import(m)\n',
  },
  '4 process': {
    'store/planted-env.ts': 'const { env } = process\nexport const home = env.HOME\n',
    'features/note/planted-kill.ts': 'export const stop = (pid: number) => process.kill(pid)\n',
    'adapters/git/planted-global.ts': 'export const p = globalThis.process\n',
    'base/planted-nodeglobal.ts': 'export const p = global.process\n',
    'adapters/github/planted-import.ts': "import process from 'node:process'\nexport const pid = process.pid\n",
    'store/planted-require.ts':
      "import { createRequire } from 'node:module'\nexport const git = createRequire(import.meta.url)('isomorphic-git')\n",
    'domain/record/planted-require.ts': "export const yaml = require('yaml')\n",
    'clikit/planted-function.ts': "export const f = Function('return 1')\n",
  },
  console: { 'features/risk/planted-console.ts': "export const say = () => console.log('hi')\n" },
  '3 engines': {
    'domain/plan/planted-fetch.ts': "export const get = () => fetch('https://example.invalid')\n",
    'domain/plan/planted-clock.ts': 'export const t = () => performance.now()\n',
    'domain/plan/planted-uuid.ts': 'export const id = () => crypto.randomUUID()\n',
    'domain/plan/planted-date.ts': 'export const now = () => new Date()\n',
    'domain/plan/planted-random.ts': 'export const r = () => Math.random()\n',
    'domain/plan/planted-timer.ts': 'export const later = (f: () => void) => setTimeout(f, 1)\n',
    'domain/plan/planted-fs.ts': "import { readFileSync } from 'node:fs'\nexport const r = readFileSync\n",
    'domain/plan/planted-package.ts': "export { parse } from 'yaml'\n",
    'domain/plan/planted-store.ts': "export { qualifiedRef } from '../../format/refs.js'\n",
    'domain/plan/planted-system.ts': "export { system } from '../../base/system.js'\n",
  },
  order: { 'store/planted-locale.ts': "export const c = 'a'.localeCompare('b')\n" },
  '2 app layer': {
    'mcp/planted-gitx.ts': "import { userIdent } from '../adapters/git/config.js'\nexport const who = userIdent\n",
    'cli/planted-store.ts': "export { Store } from '../store/store.js'\n",
    'board/planted-engine.ts': "export { findCycle } from '../domain/plan/cycle.js'\n",
    'cli/planted-command.ts': "export { add } from '../features/risk/add.js'\n",
  },
  '1 slices': { 'features/project/planted-slice.ts': "export * from '../risk/docs.js'\n" },
  kernel: {
    'clikit/planted-engine.ts': "export { findCycle } from '../domain/plan/cycle.js'\n",
    'clikit/planted-store.ts': "export { qualifiedRef } from '../format/refs.js'\n",
    'clikit/planted-yaml.ts': "export { parse } from 'yaml'\n",
  },
  leaves: { 'base/planted-leaf.ts': "export { qualifiedRef } from '../format/refs.js'\n" },
  layers: { 'store/planted-bin.ts': "export { nodeSystem } from '../../cmd/system.js'\n" },
  '8 heavy': {
    'features/record/planted-heavy.ts': "export { default as git } from 'isomorphic-git'\n",
    'store/planted-octokit.ts': "export { Octokit } from '@octokit/core'\n",
    'features/mcp/planted-sdk.ts': "export { Server } from '@modelcontextprotocol/sdk/server/index.js'\n",
    'store/planted-zod.ts': "export { z } from 'zod'\n",
    // A command file importing its json.ts for values (zod on the run path).
    'features/note/planted-zod.ts': "export { documents } from './json.js'\n",
    // Loaded by a static import, directly or not, where only an import() may load it.
    'features/record/planted-lazy.ts': "export const git = () => import('isomorphic-git')\n",
    'features/risk/planted-yaml.ts': "export { parseTask } from '../../format/parsing.js'\n",
    'store/planted-frontmatter.ts': "export { parseObject } from '../format/frontmatter.js'\n",
    'domain/github/planted-client.ts': "export * from '../../adapters/github/client.js'\n",
    'features/mcp/planted-server.ts': "export * from '../../mcp/server.js'\n",
    'clikit/planted-width.ts': "export * from './out.js'\n",
  },
  // 9. A command not found under its name: in another family's folder; in a file named otherwise; a one-word
  // command outside its own folder.
  '9 names': {
    'features/note/planted-place.ts': command('task frob'),
    'features/task/frobs.ts': command('task frob-all'),
    'features/insight/events.ts': command('events'),
  },
}

const planted = Object.entries(PLANTS).flatMap(([rule, files]) =>
  Object.entries(files).map(([file, source]) => ({
    rule,
    file: `internal/${file}`,
    source,
    // The test's name: what is planted (the source without the planted command's import), cut short.
    what: short(source),
  })),
)

function short(source: string): string {
  const lines = source.split('\n').filter((l) => l !== '' && !l.startsWith('import { defineCommand'))
  const text = lines.map((l) => l.trim()).join('; ')
  return text.length > 130 ? `${text.slice(0, 129)}…` : text
}

/** A command module declaring `path`. */
function command(path: string): string {
  return [
    "import { defineCommand } from '../../clikit/command.js'",
    `export const c = defineCommand({ path: '${path}', summary: 'a planted command', args: [], flags: {}, json: null, mutates: false, async run() { return { data: null, human() {} } } })`,
    '',
  ].join('\n')
}

/** A command module whose body returns `expr` (over `input`, with an optional argument `ref`). */
function body(expr: string): string {
  return [
    "import { defineCommand, optionalArg } from '../../clikit/command.js'",
    'export const planted = defineCommand({',
    `  async run(_ctx, input) { return { data: ${expr} } },`,
    "  path: 'task planted', summary: 'a planted command', args: [optionalArg('ref', 'r')], flags: {},",
    '  json: null, mutates: false,',
    '})',
    '',
  ].join('\n')
}

/** An existing module that gains an import in place, and a command moved back to where it was before. */
const IN_PLACE = 'internal/mcp/tools.ts'
const MOVED = 'internal/features/record/tasklog.ts'
/** A slice padded to one line over the limit, one padded to exactly the limit, and one with a long test file. */
const OVER = 'internal/features/risk'
const AT_LIMIT = 'internal/features/questions'
const BIG_TEST = 'internal/features/claims/planted-big.test.ts'

/** Adds a file of comment lines to the slice at `dir` so that it has `total` lines of non-test code. */
async function padSlice(dir: string, total: number): Promise<void> {
  const missing = total - (await sliceLines(dir))
  expect(missing).toBeGreaterThan(0)
  fs.writeFileSync(path.join(dir, 'planted-padding.ts'), '// padding\n'.repeat(missing))
  expect(await sliceLines(dir)).toBe(total)
}

describe('planted violations: each is reported in its file under its rule, and nothing else is', () => {
  let found: Violation[] = []

  beforeAll(async () => {
    const root = tempDir('dacli-arch-')
    for (const top of ['internal', 'cmd', 'lint']) {
      fs.cpSync(path.join(REPO_ROOT, top), path.join(root, top), { recursive: true })
    }
    for (const f of ['biome.json', 'tsconfig.json']) fs.copyFileSync(path.join(REPO_ROOT, f), path.join(root, f))
    for (const { file, source } of planted) {
      expect(fs.existsSync(path.join(root, file)), `${file} is new`).toBe(false)
      fs.writeFileSync(path.join(root, file), source)
    }
    // An existing module changed in place is seen too.
    const inPlace = path.join(root, IN_PLACE)
    expect(fs.existsSync(inPlace), `${IN_PLACE} exists`).toBe(true)
    fs.appendFileSync(inPlace, "export { gitConfig } from '../adapters/git/config.js'\n")
    // And a command moved back where it was before it had a place of its own: `task log` in the record slice.
    fs.renameSync(path.join(root, 'internal/features/task/log.ts'), path.join(root, MOVED))
    const taskIndex = path.join(root, 'internal/features/task/index.ts')
    const index = fs.readFileSync(taskIndex, 'utf8')
    const without = index.replace("import { log } from './log.js'\n", '').replace(/^ {2}log,\n/m, '')
    expect(without).not.toBe(index)
    fs.writeFileSync(taskIndex, without)
    const manifestFile = path.join(root, 'internal/cli/manifest.gen.ts')
    const manifest = fs.readFileSync(manifestFile, 'utf8')
    const relocated = manifest.replace('"../features/task/log.js"', `"../features/record/tasklog.js"`)
    expect(relocated).not.toBe(manifest)
    fs.writeFileSync(manifestFile, relocated)

    // A slice one line over the limit is reported; one at the limit is not, and test files do not count.
    await padSlice(path.join(root, OVER), SLICE_LINES + 1)
    await padSlice(path.join(root, AT_LIMIT), SLICE_LINES)
    fs.writeFileSync(path.join(root, BIG_TEST), '// a long test file\n'.repeat(2 * SLICE_LINES))

    found = await checkArchitecture(root)
  }, 120_000)

  test.each(planted.map((p) => [`${p.rule}: ${p.what} (${p.file})`, p] as const))('%s', (_, { file, rule }) => {
    expect(found.filter((v) => v.file === file).map((v) => v.rule)).toContain(rule)
  })

  test(`an existing module changed in place (${IN_PLACE} importing the git adapter) → 2 app layer`, () => {
    expect(found.filter((v) => v.file === IN_PLACE).map((v) => v.rule)).toEqual(['2 app layer'])
  })

  test('a command moved out of its place (task log in the record slice) → 9 names', () => {
    expect(found.filter((v) => v.file === MOVED)).toEqual([
      { rule: '9 names', file: MOVED, detail: '`task log` belongs in internal/features/task/log.ts' },
    ])
  })

  test(`a slice over ${SLICE_LINES} lines of non-test code (${OVER} at ${SLICE_LINES + 1}) → 10 slice size`, () => {
    expect(found.filter((v) => v.file === OVER)).toEqual([
      {
        rule: '10 slice size',
        file: OVER,
        detail: `${SLICE_LINES + 1} lines of non-test code (at most ${SLICE_LINES}): split the slice or move shared machinery down`,
      },
    ])
  })

  test('nothing else is reported (a slice at the limit, a long test file, the padding files themselves)', () => {
    const files = new Set([...planted.map((p) => p.file), IN_PLACE, MOVED, OVER])
    // The other plants add lines to their slices too; a size report there is theirs, not the padding's.
    const enlarged = new Set([...files].map((f) => /^internal\/features\/[^/]+/.exec(f)?.[0]))
    enlarged.delete(AT_LIMIT)
    const other = (v: Violation) => !files.has(v.file) && !(v.rule === '10 slice size' && enlarged.has(v.file))
    expect(found.filter(other)).toEqual([])
  })
})
