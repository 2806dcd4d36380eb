// The architecture's rules (ARCHITECTURE.md), enforced over the import graph esbuild resolves, the semantic
// lint rules in biome.json, and the built bundle (internal/testkit/arch.ts says how). The checks are shown to
// bite: a temporary copy of the tree with a planted violation of each kind must be reported, file by file.

import { spawnSync } from 'node:child_process'
import * as fs from 'node:fs'
import * as path from 'node:path'
import { beforeAll, describe, expect, test } from 'vitest'
import { checkArchitecture, FILE_LINES, type Violation } from '../testkit/arch.js'
import { commands } from '../testkit/commands.js'
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

/** The command table's paths: what the command-text rules hold hints to. */
const PATHS = new Set(commands.map((c) => c.path))

describe('architecture rules', () => {
  test('the tree keeps every rule (rooms, cycles, heavy packages, lint rules, names, sizes, text)', async () => {
    expect(byRule(await checkArchitecture(REPO_ROOT, PATHS))).toEqual({})
  }, 300_000)

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
      /^(cmd\/(dacli|system|services)\.ts|internal\/clikit\/[a-z]+\.ts|internal\/cli\/(main|manifest\.gen)\.ts|internal\/base\/[a-z]+\.ts)$/
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

  test('3. the reads agents run most (--json) load four chunks of the bundle; task add and a claim seven, context eight', async () => {
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
    // The brief reads the whole store but none of the other everyday commands (its own group, `brief`): the store is
    // two chunks, what the write group imports of it and the rest.
    expect(modules(['context', 'alpha/1', '--json'])).toBe(8)
    // A claim rewrites a file dacli wrote without the YAML library (format/flatedit.ts): the same chunks as task add.
    expect(modules(['task', 'claim', 'alpha/1'])).toBe(7)
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
  process: {
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
  pure: {
    'domain/plan/planted-fetch.ts': "export const get = () => fetch('https://example.invalid')\n",
    'domain/plan/planted-clock.ts': 'export const t = () => performance.now()\n',
    'domain/plan/planted-uuid.ts': 'export const id = () => crypto.randomUUID()\n',
    'domain/plan/planted-date.ts': 'export const now = () => new Date()\n',
    'domain/plan/planted-random.ts': 'export const r = () => Math.random()\n',
    'domain/plan/planted-timer.ts': 'export const later = (f: () => void) => setTimeout(f, 1)\n',
    'domain/plan/planted-fs.ts': "import { readFileSync } from 'node:fs'\nexport const r = readFileSync\n",
    'format/planted-spawn.ts': "import { spawnSync } from 'node:child_process'\nexport const s = spawnSync\n",
  },
  order: { 'store/planted-locale.ts': "export const c = 'a'.localeCompare('b')\n" },
  // Each room imports only itself and the rooms below it: base < format < adapters < store < domain < clikit <
  // features < cli/mcp/board < cmd.
  'layers: base': { 'base/planted-leaf.ts': "export { qualifiedRef } from '../format/refs.js'\n" },
  'layers: format': { 'format/planted-store.ts': "export type { Store } from '../store/store.js'\n" },
  'layers: adapters': { 'adapters/git/planted-store.ts': "export { atomicWrite } from '../../store/fsio.js'\n" },
  'layers: store': {
    'store/planted-domain.ts': "export { claimTask } from '../domain/task/lifecycle.js'\n",
    'store/planted-bin.ts': "export { nodeSystem } from '../../cmd/system.js'\n",
  },
  'layers: domain': { 'domain/task/planted-kernel.ts': "export type { Context } from '../../clikit/context.js'\n" },
  'layers: kernel': { 'clikit/planted-slice.ts': "export * from '../features/risk/docs.js'\n" },
  'adapters know no dacli': {
    'adapters/github/planted-git.ts': "export { gitConfig } from '../git/config.js'\n",
    'adapters/git/planted-format.ts': "export { parseRef } from '../../format/refs.js'\n",
  },
  'app layer': {
    'mcp/planted-gitx.ts': "import { userIdent } from '../adapters/git/config.js'\nexport const who = userIdent\n",
    'cli/planted-store.ts': "export { Store } from '../store/store.js'\n",
    'board/planted-engine.ts': "export { findCycle } from '../domain/plan/cycle.js'\n",
    'cli/planted-command.ts': "export { add } from '../features/risk/add.js'\n",
  },
  slices: { 'features/project/planted-slice.ts': "export * from '../risk/docs.js'\n" },
  heavy: {
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
    'clikit/planted-yaml.ts': "export { parse } from 'yaml'\n",
  },
  // git's own files are read by the git adapter alone.
  'git internals': {
    'domain/record/planted-gitdir.ts':
      "import * as path from 'node:path'\nexport const cfg = (d: string) => path.join(d, '.git', 'config')\n",
    'store/planted-commondir.ts': "export const linked = (text: string) => text.startsWith('gitdir: ')\n",
  },
  // A command line spelt below the slices (a comment naming one is prose, and is not reported: see below).
  'command text': {
    'domain/task/planted-hint.ts':
      "// run dacli task list to see them\nexport const next = ['dacli task show ledger/1']\n",
    // biome-ignore lint/suspicious/noTemplateCurlyInString: the planted source holds a template literal
    'store/planted-template.ts': 'export const hint = (r: string) => `run \\`dacli record pull ${r}\\``\n',
    // In a slice, a next action spelt as text (a slice may spell a command line in its help and its output).
    'features/risk/planted-next.ts':
      // biome-ignore lint/suspicious/noTemplateCurlyInString: the planted source holds a template literal
      "import { UsageError } from '../../base/errors.js'\nexport const refuse = (p: string) => {\n  throw new UsageError('no', { next: [`dacli risk list --project ${p}`, 'or wait'] })\n}\n",
  },
  // A hint naming a command the table does not have.
  'command names': {
    'domain/task/planted-stale.ts':
      "import { cmd } from '../../base/commands.js'\nexport const next = [cmd('task frobnicate x')]\n",
  },
  // A comment citing a file that is not in the repository.
  citations: { 'store/planted-cite.ts': '// as ../shared/spec/format.md says\nexport const x = 1\n' },
  // 9. A command not found under its name: in another family's folder; in a file named otherwise; a one-word
  // command outside its own folder.
  names: {
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
/** A file one line over the limit, one at exactly the limit, and a long test file (tests are not counted). */
const OVER = 'internal/domain/notes/planted-long.ts'
const AT_LIMIT = 'internal/domain/notes/planted-at-limit.ts'
const BIG_TEST = 'internal/domain/notes/planted-big.test.ts'
/** A slice's help and output spelling command lines, and a next action naming its command through cmd(): fine. */
const SLICE_TEXT = 'internal/features/risk/planted-help.ts'
const SLICE_TEXT_SOURCE = [
  "import { cmd } from '../../base/commands.js'",
  "export const help = { examples: ['dacli risk list'], description: 'see `dacli risk list --json`' }",
  // biome-ignore lint/suspicious/noTemplateCurlyInString: the planted source holds a template literal
  'export const line = (r: string) => `start: dacli task claim ${r}`',
  "export const next = (p: string) => ({ next: [cmd('risk list --project ' + p), 'or wait'], line: 'see dacli doctor' })",
  '',
].join('\n')
/** A cycle between two folders: notes importing questions, which imports notes. */
const CYCLE = 'internal/domain/notes/planted-cycle.ts'

describe('planted violations: each is reported in its file under its rule, and nothing else is', () => {
  let found: Violation[] = []

  beforeAll(async () => {
    const root = tempDir('dacli-arch-')
    for (const top of ['internal', 'cmd', 'lint']) {
      fs.cpSync(path.join(REPO_ROOT, top), path.join(root, top), { recursive: true })
    }
    for (const f of ['biome.json', 'tsconfig.json', '.dependency-cruiser.cjs']) {
      fs.copyFileSync(path.join(REPO_ROOT, f), path.join(root, f))
    }
    // What comments cite besides the source: the documents at the root, the scripts, schemas and the skill.
    for (const f of fs.readdirSync(REPO_ROOT).filter((n) => n.endsWith('.md'))) {
      fs.copyFileSync(path.join(REPO_ROOT, f), path.join(root, f))
    }
    for (const top of ['scripts', 'schemas', 'skills']) {
      fs.cpSync(path.join(REPO_ROOT, top), path.join(root, top), { recursive: true })
    }
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

    // A file one line over the limit is reported; one at the limit is not, and test files do not count.
    fs.writeFileSync(path.join(root, OVER), '// padding\n'.repeat(FILE_LINES + 1))
    fs.writeFileSync(path.join(root, AT_LIMIT), '// padding\n'.repeat(FILE_LINES))
    fs.writeFileSync(path.join(root, BIG_TEST), '// a long test file\n'.repeat(2 * FILE_LINES))
    fs.writeFileSync(path.join(root, SLICE_TEXT), SLICE_TEXT_SOURCE)
    // And a cycle between two folders.
    fs.writeFileSync(path.join(root, CYCLE), "export type { Thread } from '../questions/questions.js'\n")

    found = await checkArchitecture(root, PATHS)
  }, 300_000)

  test.each(planted.map((p) => [`${p.rule}: ${p.what} (${p.file})`, p] as const))('%s', (_, { file, rule }) => {
    expect(found.filter((v) => v.file === file).map((v) => v.rule)).toContain(rule)
  })

  test(`an existing module changed in place (${IN_PLACE} importing the git adapter) → app layer`, () => {
    expect(found.filter((v) => v.file === IN_PLACE).map((v) => v.rule)).toEqual(['app layer'])
  })

  test('a command moved out of its place (task log in the record slice) → names', () => {
    expect(found.filter((v) => v.file === MOVED)).toEqual([
      { rule: 'names', file: MOVED, detail: '`task log` belongs in internal/features/task/log.ts' },
    ])
  })

  test(`a file over ${FILE_LINES} lines (${OVER} at ${FILE_LINES + 1}) → file size; at the limit or a test, none`, () => {
    expect(found.filter((v) => v.file === OVER)).toEqual([
      {
        rule: 'file size',
        file: OVER,
        detail: `${FILE_LINES + 1} lines (at most ${FILE_LINES}): split it by what it does`,
      },
    ])
    expect(found.filter((v) => v.file === AT_LIMIT || v.file === BIG_TEST)).toEqual([])
  })

  test(`a slice's help, output and cmd() next actions (${SLICE_TEXT}) → none`, () => {
    expect(found.filter((v) => v.file === SLICE_TEXT)).toEqual([])
  })

  test('a cycle between two folders (domain/notes → domain/questions → domain/notes) → no cycles', () => {
    // The other plants make cycles of their own (a store importing the domain): look for this one.
    const cycles = found.filter((v) => v.rule === 'no cycles' && v.file === 'internal/domain/notes')
    expect(cycles.some((v) => v.detail.includes('internal/domain/questions'))).toBe(true)
  })

  test('nothing else is reported (a file at the limit, a long test file, a comment naming a command)', () => {
    const files = new Set([...planted.map((p) => p.file), IN_PLACE, MOVED, OVER])
    const other = (v: Violation) => !files.has(v.file) && v.rule !== 'no cycles'
    expect(found.filter(other)).toEqual([])
    // The planted hint's comment (`run dacli task list`) is prose: only its string is reported.
    expect(found.filter((v) => v.file === 'internal/domain/task/planted-hint.ts').map((v) => v.rule)).toEqual([
      'command text',
    ])
  })
})
