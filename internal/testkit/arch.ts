// The architecture check behind internal/cli/arch.test.ts. Nothing here reads
// source text with regular expressions:
//
//   - the import graph comes from esbuild's metafile: every non-test module under
//     internal/ and cmd/ is bundled (nothing written), so each import is resolved
//     by a real resolver, `import type` is gone, and an import esbuild cannot
//     name (a computed `import(x)`, a template literal, a `require`) is reported
//     instead of silently skipped;
//   - what a module does with globals (`process`, `globalThis`, a clock, `fetch`,
//     `localeCompare`) comes from Biome's semantic model (destructuring and
//     aliases included), through the rules biome.json declares for internal/ and
//     internal/engines/;
//   - where each command lives comes from the build's own collection of the
//     commands (scripts/build.mjs, the same that writes the manifest's loaders);
//   - a slice's size is its non-test TypeScript lines, counted as `wc -l` does.
//
// `checkArchitecture(root)` runs all four over any copy of the tree, so a test
// can plant a violation in a temporary copy and see it reported.

import { execFile } from 'node:child_process'
import { mkdirSync } from 'node:fs'
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises'
import * as path from 'node:path'
import { promisify } from 'node:util'
import { build, type Message, type Metafile } from 'esbuild'
import { generateManifest } from '../../scripts/build.mjs'
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
  const bad = (e: ImportEdge, detail: string) => out.push({ rule: '8 heavy', file: e.from, detail })
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

/** The layering rules, over the graph. Each returns the edges it forbids. */
function graphViolations(edges: readonly ImportEdge[]): Violation[] {
  const out: Violation[] = []
  const bad = (rule: string, e: ImportEdge, why: string) =>
    out.push({ rule, file: e.from, detail: `imports ${e.to} (${e.kind}): ${why}` })
  for (const e of edges) {
    const f = e.from
    if (under(f, 'internal') && under(e.to, 'cmd')) bad('layers', e, 'nothing under internal/ imports the bin')

    // 1. Slices never import each other.
    const a = sliceOf(f)
    const b = sliceOf(e.to)
    if (a !== null && b !== null && a !== b) bad('1 slices', e, `the ${a} slice imports the ${b} slice`)

    // 2. The app layer (the CLI, the MCP server, the board) imports the kernel, base and the slices' index.ts /
    // json.ts only.
    if (under(f, 'internal/cli') || under(f, 'internal/mcp') || under(f, 'internal/board')) {
      const ok = e.external
        ? isNode(e) ||
          (e.to === 'zod' && f === 'internal/cli/documents.ts') ||
          (/^@modelcontextprotocol\/sdk\//.test(e.to) && under(f, 'internal/mcp'))
        : ['internal/clikit', 'internal/base', 'internal/cli', 'internal/mcp', 'internal/board'].some((d) =>
            under(e.to, d),
          ) ||
          // The composition root (services.ts, autorecord.ts) loads the store, the adapters and the servers lazily.
          ((f === 'internal/cli/services.ts' || f === 'internal/cli/autorecord.ts') && e.kind === 'dynamic-import') ||
          /^internal\/features\/[^/]+\/(index|json)\.ts$/.test(e.to) ||
          // The generated table loads each command module on first use.
          (f === 'internal/cli/manifest.gen.ts' && e.kind === 'dynamic-import' && sliceOf(e.to) !== null)
      if (!ok) bad('2 app layer', e, 'the app layer imports only the kernel, base and the slices’ exports')
    }

    // 3. The plan is pure: itself and the pure base modules, nothing external (not even node:*).
    if (under(f, 'internal/domain/plan')) {
      const ok =
        !e.external &&
        (under(e.to, 'internal/domain/plan') || /^internal\/base\/(order|duration|distance)\.ts$/.test(e.to))
      if (!ok) bad('3 engines', e, 'domain/plan imports only itself and base/{order,duration,distance}')
    }

    // 4. Only cmd/ touches process: not through an import either. No createRequire: a require() is invisible here.
    if (under(f, 'internal') && e.external && /^(node:)?(process|module)$/.test(e.to)) {
      bad('4 process', e, e.to.endsWith('process') ? 'only cmd/ touches process' : 'no createRequire')
    }

    // The kernel sits below the slices and the adapters: it imports itself, base and the typed errors.
    if (under(f, 'internal/clikit')) {
      const ok = e.external
        ? isNode(e) || e.to === 'zod' || e.to === 'get-east-asian-width'
        : under(e.to, 'internal/clikit') || under(e.to, 'internal/base')
      if (!ok) bad('kernel', e, 'the kernel imports only clikit and base')
    }

    // Leaves: base/* imports only base (and node:*).
    if (under(f, 'internal/base') && !under(e.to, 'internal/base') && !isNode(e))
      bad('leaves', e, 'base imports only base')
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
  if (category === 'plugin') return 'typed inputs'
  if (category === 'lint/suspicious/noConsole') return 'console'
  if (text.includes('localeCompare')) return 'order'
  return file.startsWith('internal/domain/plan/') ? '3 engines' : '4 process'
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
    if (file !== want) out.push({ rule: '9 names', file, detail: `\`${p}\` belongs in ${want}` })
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

/** 10. Slices stay small: at most this many lines of non-test TypeScript in one folder under internal/features/. */
export const SLICE_LINES = 1000

/** Lines as `wc -l` counts them (a last line without a newline counts too). */
const lineCount = (text: string) => (text === '' ? 0 : text.split('\n').length - (text.endsWith('\n') ? 1 : 0))

/** The lines of non-test TypeScript in one slice's folder (subfolders included). */
export async function sliceLines(dir: string): Promise<number> {
  let lines = 0
  for (const e of await readdir(dir, { recursive: true, withFileTypes: true })) {
    if (e.isFile() && e.name.endsWith('.ts') && !e.name.endsWith('.test.ts')) {
      lines += lineCount(await readFile(path.join(e.parentPath, e.name), 'utf8'))
    }
  }
  return lines
}

/** Every slice over SLICE_LINES lines of non-test TypeScript. */
async function sliceSizes(root: string): Promise<Violation[]> {
  const features = path.join(root, 'internal', 'features')
  const out: Violation[] = []
  for (const slice of await readdir(features, { withFileTypes: true })) {
    if (!slice.isDirectory()) continue
    const lines = await sliceLines(path.join(features, slice.name))
    if (lines > SLICE_LINES) {
      out.push({
        rule: '10 slice size',
        file: `internal/features/${slice.name}`,
        detail: `${lines} lines of non-test code (at most ${SLICE_LINES}): split the slice or move shared machinery down`,
      })
    }
  }
  return out
}

/** Every architecture violation in the tree at `root`. */
export async function checkArchitecture(root: string): Promise<Violation[]> {
  const [{ edges, unnamed }, lint, placement, sizes] = await Promise.all([
    importGraph(root),
    lintViolations(root),
    commandPlacement(root),
    sliceSizes(root),
  ])
  return [...unnamed, ...graphViolations(edges), ...heavyViolations(edges), ...lint, ...placement, ...sizes]
}
