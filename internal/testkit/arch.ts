// The architecture check behind internal/cli/arch.test.ts (ARCHITECTURE.md, "Rules"). Nothing here reads
// source text with regular expressions alone:
//
//   - the rooms' import rules and the absence of cycles between folders come from dependency-cruiser, with the
//     rule set in .dependency-cruiser.cjs (each rule named there is a rule here);
//   - which modules load a heavy package by a static import comes from esbuild's metafile: every non-test
//     module under internal/ and cmd/ is bundled (nothing written), so each import is resolved by a real
//     resolver, `import type` is gone, and an import esbuild cannot name (a computed `import(x)`, a template
//     literal, a `require`) is reported instead of silently skipped;
//   - what a module does with globals (`process`, `globalThis`, a clock, `localeCompare`) and which string
//     literals name git's own files come from Biome's semantic model and its GritQL plugins (biome.json);
//   - command text (`dacli task claim …`) is found in string and template literals parsed by swc, and
//     checked against the command table's families;
//   - where each command lives comes from the build's own collection of the commands (scripts/build.mjs);
//   - a file's size is its lines as `wc -l` counts them, and a comment's citations are file names.
//
// `checkArchitecture(root)` runs them all over any copy of the tree, so a test can plant a violation in a
// temporary copy and see it reported.

import { execFile } from 'node:child_process'
import { mkdirSync } from 'node:fs'
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises'
import * as path from 'node:path'
import { promisify } from 'node:util'
import { build, type Message, type Metafile } from 'esbuild'
import { generateManifest } from '../../scripts/build.mjs'
import { scanText } from './jstext.js'
import { REPO_ROOT } from './ws.js'

export interface Violation {
  /** The rule broken (ARCHITECTURE.md's numbering where it has one). */
  rule: string
  /** Repository-relative file. */
  file: string
  detail: string
}

export interface ImportEdge {
  from: string
  /** A repository-relative file, or a package / `node:` name when external. */
  to: string
  kind: string
  external: boolean
}

const run = promisify(execFile)

/** Every module the graph covers: non-test TypeScript under internal/ (test kits excepted) and cmd/. */
async function sourceFiles(root: string): Promise<string[]> {
  const out: string[] = []
  for (const top of ['internal', 'cmd']) {
    for (const e of await readdir(path.join(root, top), { recursive: true, withFileTypes: true })) {
      if (!e.isFile() || !e.name.endsWith('.ts') || e.name.endsWith('.test.ts')) continue
      const rel = path.relative(root, path.join(e.parentPath, e.name)).split(path.sep).join('/')
      if (!rel.startsWith('internal/testkit/')) out.push(rel)
    }
  }
  return out.sort()
}

/** The resolved import graph, and every import esbuild could not resolve to a named module. */
async function importGraph(root: string): Promise<{ edges: ImportEdge[]; unnamed: Violation[] }> {
  const files = await sourceFiles(root)
  const unnamed: Violation[] = []
  const noteOf = (m: Message, what: string): Violation => ({
    rule: 'named imports',
    file: m.location?.file ?? '?',
    detail: `${what}: ${m.text} (line ${m.location?.line ?? '?'}: ${m.location?.lineText.trim() ?? ''})`,
  })
  let metafile: Metafile
  try {
    const r = await build({
      absWorkingDir: root,
      entryPoints: files,
      bundle: true,
      write: false,
      metafile: true,
      format: 'esm',
      platform: 'node',
      target: 'node20',
      outdir: 'arch-out',
      splitting: true,
      packages: 'external',
      logLevel: 'silent',
      // By default esbuild mentions these only at debug level and leaves the import out of the graph.
      logOverride: { 'unsupported-dynamic-import': 'warning', 'unsupported-require-call': 'warning' },
    })
    metafile = r.metafile
    for (const w of r.warnings) unnamed.push(noteOf(w, 'esbuild warns'))
  } catch (e) {
    const errors = (e as { errors?: Message[] }).errors
    if (errors === undefined) throw e
    return { edges: [], unnamed: errors.map((m) => noteOf(m, 'esbuild cannot follow')) }
  }
  const edges: ImportEdge[] = []
  for (const [from, input] of Object.entries(metafile.inputs)) {
    for (const imp of input.imports) {
      if (imp.path.includes('*') || imp.original?.includes('*')) {
        unnamed.push({
          rule: 'named imports',
          file: from,
          detail: `import() with a computed module name (${imp.original ?? imp.path}): name the module`,
        })
        continue
      }
      edges.push({ from, to: imp.path, kind: imp.kind, external: imp.external === true })
    }
  }
  return { edges, unnamed }
}

/** The slice a file belongs to; `features/shared` is what two slices render alike, not a slice. */
const sliceOf = (f: string) => {
  const s = /^internal\/features\/([^/]+)\//.exec(f)?.[1] ?? null
  return s === 'shared' ? null : s
}
const under = (f: string, dir: string) => f.startsWith(`${dir}/`)
const isNode = (e: ImportEdge) => e.external && e.to.startsWith('node:')

interface Heavy {
  readonly pkg: RegExp
  /** Who may import it at all (an adapter, or the one module wrapping it). */
  readonly imports: (f: string) => boolean
  /** Who may reach it through static imports, directly or not; everything else only through an import(). */
  readonly reaches: (f: string) => boolean
  readonly where: string
}

const isZodModule = (f: string) =>
  f.endsWith('/json.ts') || f.endsWith('.schema.ts') || f === 'internal/cli/documents.ts'

/** 8. Heavy packages: who may import each, and who may have it loaded by a static import. */
const HEAVY: readonly Heavy[] = [
  {
    pkg: /^isomorphic-git(\/|$)/,
    imports: (f) => under(f, 'internal/adapters/git'),
    reaches: (f) => under(f, 'internal/adapters/git'),
    where: 'internal/adapters/git',
  },
  {
    pkg: /^@octokit\//,
    imports: (f) => under(f, 'internal/adapters/github'),
    reaches: (f) => f === 'internal/adapters/github/client.ts',
    where: 'internal/adapters/github/client.ts',
  },
  {
    pkg: /^@modelcontextprotocol\/sdk(\/|$)/,
    imports: (f) => under(f, 'internal/mcp'),
    reaches: (f) => under(f, 'internal/mcp') && f !== 'internal/mcp/tools.ts',
    where: 'internal/mcp (not tools.ts)',
  },
  { pkg: /^zod$/, imports: isZodModule, reaches: isZodModule, where: 'json.ts, *.schema.ts and cli/documents.ts' },
  {
    pkg: /^yaml$/,
    imports: (f) => f === 'internal/format/frontmatter.ts',
    reaches: (f) => f === 'internal/format/frontmatter.ts' || f === 'internal/format/parsing.ts',
    where: 'format/frontmatter.ts (and parsing.ts, which the store loads with import())',
  },
  {
    pkg: /^get-east-asian-width$/,
    imports: (f) => f === 'internal/clikit/width.ts',
    reaches: (f) => f === 'internal/clikit/width.ts' || f === 'internal/clikit/out.ts',
    where: 'clikit/width.ts (and out.ts, the table renderer invoke() loads with import())',
  },
]

/**
 * 8. A heavy package imported outside its place, and every static import by which a module not allowed to reaches
 * one (the first step of the path; the module should use import() there).
 */
function heavyViolations(edges: readonly ImportEdge[]): Violation[] {
  const imports = new Map<string, string[]>()
  for (const e of edges) {
    if (e.kind !== 'dynamic-import') imports.set(e.from, [...(imports.get(e.from) ?? []), e.to])
  }
  const reached = new Map<string, Set<string>>()
  const reach = (m: string): Set<string> => {
    let r = reached.get(m)
    if (r !== undefined) return r
    r = new Set([m])
    reached.set(m, r)
    for (const t of imports.get(m) ?? []) for (const x of reach(t)) r.add(x)
    return r
  }
  const out: Violation[] = []
  const bad = (e: ImportEdge, detail: string) => out.push({ rule: 'heavy', file: e.from, detail })
  for (const h of HEAVY) {
    for (const e of edges) {
      if (e.external && h.pkg.test(e.to) && !h.imports(e.from)) bad(e, `imports ${e.to}: only ${h.where} may`)
      if (e.kind === 'dynamic-import' || h.reaches(e.from)) continue
      const via = e.external ? (h.pkg.test(e.to) ? e.to : undefined) : [...reach(e.to)].find((x) => h.pkg.test(x))
      if (via === undefined) continue
      const how = e.to === via ? '' : ` through ${e.to}`
      bad(e, `loads ${via}${how} by a static import: only ${h.where} may; use import()`)
    }
  }
  return out
}

/**
 * The Biome rules that carry architecture (biome.json): restricted globals, imports and properties, the console
 * ban (off only in cmd/, scripts/ and bench/), and the GritQL plugin lint/typed-inputs.grit (no `as string` / `as number`, no cast of a command's input, in a slice).
 */
const LINT_RULES = [
  'style/noRestrictedGlobals',
  'style/noRestrictedImports',
  'nursery/noJsRestrictedProperties',
  'suspicious/noConsole',
  'plugin',
]

interface BiomeReport {
  diagnostics: {
    category: string
    description?: string
    message?: unknown
    location: { path?: string | { file: string }; start?: { line: number } }
  }[]
}

/** The architecture rule a Biome diagnostic stands for. */
function lintRule(category: string, text: string, file: string): string {
  if (category === 'plugin') return text.includes('internal/adapters/git alone') ? 'git internals' : 'typed inputs'
  if (category === 'lint/suspicious/noConsole') return 'console'
  if (text.includes('localeCompare')) return 'order'
  return file.startsWith('internal/domain/plan/') ? 'pure' : 'process'
}

/** What the architecture's lint rules say about the tree at `root` (with that tree's biome.json). */
async function lintViolations(root: string): Promise<Violation[]> {
  const biome = path.join(REPO_ROOT, 'node_modules', '.bin', 'biome')
  const args = [
    'lint',
    '--reporter=json',
    '--vcs-enabled=false',
    '--max-diagnostics=none',
    `--config-path=${root}`,
    ...LINT_RULES.map((r) => `--only=${r}`),
    'internal',
    'cmd',
  ]
  let stdout: string
  try {
    stdout = (await run(biome, args, { cwd: root, maxBuffer: 64 * 1024 * 1024 })).stdout
  } catch (e) {
    // Biome exits 1 when it reports errors; the report is still on stdout.
    stdout = (e as { stdout?: string }).stdout ?? ''
    if (stdout === '') throw e
  }
  const report = JSON.parse(stdout) as BiomeReport
  return report.diagnostics
    .filter((d) => d.category.startsWith('lint/') || d.category === 'plugin')
    .map((d) => {
      const p = d.location.path
      const file = typeof p === 'string' ? p : (p?.file ?? '?')
      const text = d.description ?? (typeof d.message === 'string' ? d.message : d.category)
      return { rule: lintRule(d.category, text, file), file, detail: `line ${d.location.start?.line ?? '?'}: ${text}` }
    })
}

/**
 * 9. A command is found by its name: `task log` is internal/features/task/log.ts (a path's later words joined with
 * `-`), one command per file; a one-word command is `<name>.ts` in some slice, and in its own folder when
 * internal/features/<name>/ exists (`record` is record/record.ts). `slices` are the folder names under features/.
 */
export function placementViolations(
  commands: readonly { path: string; file: string }[],
  slices: ReadonlySet<string>,
): Violation[] {
  const out: Violation[] = []
  for (const { path: p, file } of commands) {
    const [first = '', ...rest] = p.split(' ')
    const slice = rest.length > 0 || slices.has(first) ? first : sliceOf(file)
    const want = `internal/features/${slice}/${rest.length > 0 ? rest.join('-') : first}.ts`
    if (file !== want) out.push({ rule: 'names', file, detail: `\`${p}\` belongs in ${want}` })
  }
  return out
}

/**
 * Where each command of the tree at `root` is defined, as the build collects them for the manifest (its loaders
 * import exactly these files). The collection is bundled in a scratch folder under this repository's node_modules,
 * so the modules' packages resolve whichever tree is examined.
 */
export async function commandPlacement(root: string): Promise<Violation[]> {
  const cache = path.join(REPO_ROOT, 'node_modules', '.cache')
  mkdirSync(cache, { recursive: true })
  const scratch = await mkdtemp(path.join(cache, 'dacli-arch-'))
  try {
    const { entries } = await generateManifest({ write: false, at: root, scratch, logLevel: 'silent' })
    const dirs = await readdir(path.join(root, 'internal', 'features'), { withFileTypes: true })
    const slices = new Set(dirs.filter((d) => d.isDirectory()).map((d) => d.name))
    return placementViolations(
      entries.map((e) => ({ path: e.decl.path, file: e.file })),
      slices,
    )
  } finally {
    await rm(scratch, { recursive: true, force: true })
  }
}

/** No source file over this many lines (ARCHITECTURE.md, "Habits"); test files and the generated manifest aside. */
export const FILE_LINES = 600

/** Lines as `wc -l` counts them (a last line without a newline counts too). */
export const lineCount = (text: string): number =>
  text === '' ? 0 : text.split('\n').length - (text.endsWith('\n') ? 1 : 0)

/** Every source file over FILE_LINES lines. */
async function fileSizes(root: string): Promise<Violation[]> {
  const out: Violation[] = []
  for (const f of await sourceFiles(root)) {
    if (f.endsWith('.gen.ts')) continue
    const lines = lineCount(await readFile(path.join(root, f), 'utf8'))
    if (lines > FILE_LINES) {
      out.push({
        rule: 'file size',
        file: f,
        detail: `${lines} lines (at most ${FILE_LINES}): split it by what it does`,
      })
    }
  }
  return out
}

/** The rule sets dependency-cruiser reports, as .dependency-cruiser.cjs names them. */
interface CruiseReport {
  summary: {
    violations: { from: string; to: string; rule: { name: string }; cycle?: { name: string }[] }[]
  }
}

/** The import rules of .dependency-cruiser.cjs over the tree at `root` (that tree's own rule file). */
async function cruiseViolations(root: string): Promise<Violation[]> {
  const bin = path.join(REPO_ROOT, 'node_modules', '.bin', 'depcruise')
  const args = ['--config', path.join(root, '.dependency-cruiser.cjs'), '--output-type', 'json', 'internal', 'cmd']
  let stdout: string
  try {
    stdout = (await run(bin, args, { cwd: root, maxBuffer: 256 * 1024 * 1024 })).stdout
  } catch (e) {
    // depcruise exits with the number of errors; the report is still on stdout.
    stdout = (e as { stdout?: string }).stdout ?? ''
    if (stdout === '') throw e
  }
  const report = JSON.parse(stdout) as CruiseReport
  return report.summary.violations.map((v) => ({
    rule: v.rule.name,
    file: v.from,
    detail: v.cycle !== undefined ? `cycle: ${[v.from, ...v.cycle.map((c) => c.name)].join(' → ')}` : `imports ${v.to}`,
  }))
}

/** Rooms that may spell a command line: the slices, the app layers, the kernel that renders the table, the bin. */
const COMMAND_TEXT_ROOMS = /^(internal\/(features|cli|clikit|mcp|board)|cmd)\//

/** `dacli <word>`, unless an article makes `dacli` an adjective ("the dacli task", "a dacli record branch"). */
const COMMAND_LINE = /(?<!\b(?:a|an|the) )\bdacli ([a-z][a-z-]*)/gi

/** The code before a list of next actions (`next: [`, `const next = [`): a literal in it is a hint to run. */
const NEXT_LIST = /\bnext\s*[:=]$/

/** A literal whose line (or the line above) carries this in a comment is declared not to be a command line. */
const NOT_A_COMMAND = 'not a command line'

/** The longest command path of `paths` that `line` starts with (`task show x` → `task show`), or null. */
function pathOf(line: string, paths: ReadonlySet<string>): string | null {
  const words = line.trim().split(/\s+/)
  for (let n = Math.min(words.length, 3); n > 0; n--) {
    const p = words.slice(0, n).join(' ')
    if (paths.has(p)) return p
  }
  return null
}

/**
 * Command text in a room that must not hold it: a string or template literal naming `dacli <family>` for a
 * family of the command table. Hints below the slices name a command through `cmd()` (base/commands.ts), and
 * each cmd() must start with a command path of the table.
 */
async function commandText(root: string, paths: ReadonlySet<string>): Promise<Violation[]> {
  const out: Violation[] = []
  const families = new Set([...paths].map((p) => p.split(' ')[0] as string))
  const cmdCall = /\bcmd\(\s*(['"`])([^'"`$]*)/g
  for (const f of await sourceFiles(root)) {
    const text = await readFile(path.join(root, f), 'utf8')
    for (const m of text.matchAll(cmdCall)) {
      const line = text.slice(0, m.index).split('\n').length
      if (f !== 'internal/base/commands.ts' && pathOf(m[2] as string, paths) === null) {
        out.push({ rule: 'command names', file: f, detail: `line ${line}: cmd(${m[1]}${m[2]}…) names no command` })
      }
    }
    if (f.startsWith('internal/board/web/')) continue
    // The slices may spell a command line in their help (examples, descriptions), never in a next action.
    const onlyNext = f.startsWith('internal/features/')
    if (COMMAND_TEXT_ROOMS.test(f) && !onlyNext) continue
    const { strings, comments } = scanText(text)
    const exempt = new Set(comments.filter((c) => c.text.includes(NOT_A_COMMAND)).flatMap((c) => [c.line, c.line + 1]))
    for (const s of strings) {
      if (exempt.has(s.line) || (onlyNext && !NEXT_LIST.test(s.within ?? ''))) continue
      for (const m of s.text.matchAll(COMMAND_LINE)) {
        if (families.has((m[1] as string).toLowerCase())) {
          const where = onlyNext ? ' in a next action' : ''
          out.push({
            rule: 'command text',
            file: f,
            detail: `line ${s.line}: "${m[0]}"${where} — name the command with cmd()`,
          })
        }
      }
    }
  }
  return out
}

/** A file a comment cites: a document (`FORMAT.md`) or a source path (`store/fsio.ts`, `scripts/build.mjs`). */
const CITED = /(?<![\w/.<>-])((?:\.\.\/|[\w.-]+\/)*[\w.-]+\.(?:md|ts|mjs|cjs|json|grit))\b/g

/** Names of files dacli itself writes in a workspace: a comment naming one describes the format, it cites nothing. */
const WORKSPACE_NAMES = /^(?:\.dacli\/.*|project\.md|glossary\.md|config\.yml|[^/]*NNN[^/]*)$/

/** Every file name under the repository's own folders, for citations by bare name (`json.ts`). */
async function repoNames(root: string): Promise<Set<string>> {
  const names = new Set<string>()
  const tops = ['internal', 'cmd', 'scripts', 'bench', 'schemas', 'testdata', 'skills', 'lint']
  for (const top of tops) {
    const entries = await readdir(path.join(root, top), { recursive: true, withFileTypes: true }).catch(() => [])
    for (const e of entries) if (e.isFile()) names.add(e.name)
  }
  for (const e of await readdir(root, { withFileTypes: true })) if (e.isFile()) names.add(e.name)
  return names
}

/**
 * Comments cite only files that exist in the repository: a bare name some file of the repository has
 * (`FORMAT.md`, `json.ts`), or a path found from the repository root, internal/ or the citing file's folder.
 * (`coordination.md`, `../shared/spec/…` and the like live outside it.)
 */
async function citations(root: string): Promise<Violation[]> {
  const out: Violation[] = []
  const names = new Set([...(await repoNames(root)), ...(await repoNames(REPO_ROOT))])
  const exists = (p: string) =>
    readFile(p).then(
      () => true,
      () => false,
    )
  for (const f of await sourceFiles(root)) {
    const dir = path.dirname(path.join(root, f))
    for (const c of scanText(await readFile(path.join(root, f), 'utf8')).comments) {
      for (const m of c.text.matchAll(CITED)) {
        const cited = m[1] as string
        if (WORKSPACE_NAMES.test(cited)) continue
        let found = !cited.includes('/') && names.has(cited)
        // From the tree examined, or (for a copy of it) from this repository; only inside either, never beside
        // it: `../shared/spec/x.md` may well exist next to a checkout, but not in it.
        for (const base of new Set([root, REPO_ROOT])) {
          const at = path.join(base, path.relative(root, dir))
          for (const p of [path.join(base, cited), path.join(base, 'internal', cited), path.join(at, cited)]) {
            if (!found && p.startsWith(base + path.sep) && (await exists(p))) found = true
          }
        }
        if (!found) {
          out.push({
            rule: 'citations',
            file: f,
            detail: `line ${c.line}: cites ${cited}, which is not in the repository`,
          })
        }
      }
    }
  }
  return out
}

/** Every architecture violation in the tree at `root`. */
export async function checkArchitecture(root: string, paths: ReadonlySet<string>): Promise<Violation[]> {
  const [{ edges, unnamed }, cruise, lint, placement, sizes, text, cited] = await Promise.all([
    importGraph(root),
    cruiseViolations(root),
    lintViolations(root),
    commandPlacement(root),
    fileSizes(root),
    commandText(root, paths),
    citations(root),
  ])
  return [...unnamed, ...cruise, ...heavyViolations(edges), ...lint, ...placement, ...sizes, ...text, ...cited]
}
