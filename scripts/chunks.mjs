// How the bin is cut into chunks (quality.md: start-up). esbuild's code splitting
// gives every set of importers its own chunk, which on this code base meant one
// chunk per source file: `dacli task list` loaded 28 ES modules, and loading a
// module costs about as much as compiling six kilobytes of code. This plugin
// shapes the import graph esbuild sees, at build time only (the sources and the
// tests are unchanged), so the hot paths load a handful of larger chunks:
//
//   - commands are bundled in groups (virtual modules re-exporting them; the
//     manifest's loaders import the group): `meta` (help, version: the cheapest
//     paths), `hot` (the reads agents run most, which need only the store's read
//     path), `write` (the other task commands: the lifecycle agents call most;
//     only what they import, so the server's memory, notes, questions and the
//     git remote stay out of a claim's or a check's start-up),
//     `search` (it walks every object file: the store's read path, nothing of
//     core; the notes module, which parses a note or risk, only when one changed),
//     `brief` (`context`: the whole store, nothing of core),
//     `core` (the other everyday commands), `rare` (GitHub, record, MCP,
//     doctor, init: rare, each with heavy dependencies of its own, which stay
//     behind their own import());
//   - every group and every lazily loaded module of ours reaches the whole kernel,
//     and each reaches the store's read path or the whole store, so esbuild finds
//     few distinct sets of importers: one chunk for the kernel, one for the read
//     path, one for what the write group imports beyond it, one for the rest of the
//     store. Whatever uses the store reaches the hot
//     group too, so the read path, the hot commands and the engines they use are
//     one chunk (the hot group's own chunk is then only its exports). The rare
//     group (and a command's own lazily loaded helper) reaches the core group, so
//     the code they share with it is one chunk too. (Our modules do no work at import time, so importing one
//     earlier than needed changes nothing but the order.)

import { readdirSync, readFileSync } from 'node:fs'
import { dirname, join, resolve, sep } from 'node:path'

/** The group a command's module is bundled in. */
export function groupOf(decl) {
  const family = decl.path.split(' ')[0]
  if (['help', 'version', 'schema', 'catalog'].includes(decl.path)) return 'meta'
  if (HOT.includes(decl.path)) return 'hot'
  if (['github', 'record', 'mcp', 'doctor', 'init'].includes(family) || decl.path === 'task log') return 'rare'
  if (family === 'task') return 'write'
  // Search walks every object file against its own index: it needs the store and nothing of the core group.
  if (decl.path === 'search') return 'search'
  // The brief reads the store (notes, events, the project's tasks) and nothing of the other everyday commands.
  if (decl.path === 'context') return 'brief'
  return 'core'
}

/** The reads agents run most, which need only the store's read path (store.ts and what it imports). */
const HOT = ['task list', 'task show', 'next', 'critical-path']

/** Packages that stay behind their own import(): a module reaching one statically is never pulled in early. */
const HEAVY = /^(yaml|isomorphic-git|@octokit\/|@modelcontextprotocol\/|zod|get-east-asian-width)/

/**
 * The source modules of `dirs` (under internal/) that may be loaded ahead of need: not tests, not loaded
 * with import() anywhere (lazy by design), and reaching no heavy package through their static imports.
 */
function eager(internal, dirs) {
  const files = []
  for (const e of readdirSync(internal, { withFileTypes: true, recursive: true })) {
    const file = join(e.parentPath ?? e.path, e.name)
    if (e.isFile() && file.endsWith('.ts') && !file.endsWith('.test.ts')) files.push(file)
  }
  const source = new Map(files.map((f) => [f, readFileSync(f, 'utf8')]))
  const lazy = new Set()
  const statics = new Map()
  for (const [f, text] of source) {
    for (const m of text.matchAll(/\bimport\(\s*['"](\.[^'"]+)['"]\s*\)/g))
      lazy.add(resolve(dirname(f), m[1]).replace(/\.js$/, '.ts'))
    const specs = [...text.matchAll(/^\s*(?:import|export)\s+(?!type\b)[^'"]*?from\s+['"]([^'"]+)['"]/gm)].map(
      (m) => m[1],
    )
    statics.set(f, specs)
  }
  // Loaded only with import(): lazy by design (one that is also imported statically gains nothing from it).
  for (const [f, specs] of statics) {
    for (const spec of specs) if (spec.startsWith('.')) lazy.delete(resolve(dirname(f), spec).replace(/\.js$/, '.ts'))
  }
  const heavy = new Map()
  const reachesHeavy = (f, seen = new Set()) => {
    if (heavy.has(f)) return heavy.get(f)
    if (seen.has(f)) return false
    seen.add(f)
    let h = false
    for (const spec of statics.get(f) ?? []) {
      if (spec.startsWith('.')) h ||= reachesHeavy(resolve(dirname(f), spec).replace(/\.js$/, '.ts'), seen)
      else h ||= HEAVY.test(spec)
    }
    heavy.set(f, h)
    return h
  }
  return files
    .filter(
      (f) => dirs.some((d) => f.startsWith(join(internal, d) + sep)) || dirs.includes(f.slice(internal.length + 1)),
    )
    .filter((f) => !lazy.has(f) && !reachesHeavy(f))
    .sort()
}

/** CommonJS packages loaded with import() (their module object is `default`). */
const CJS_LAZY = /^isomorphic-git$/

/** @param {{root: string, entries: {decl: {path: string}, spec: string, name: string}[]}} opts */
export function chunkPlugin({ root, entries }) {
  const internal = join(root, 'internal')
  const cliDir = join(internal, 'cli')
  /** The kernel: the clikit, the base services and the app's main(), as one chunk. */
  // base/ids.ts (the ulid package), base/hosttag.ts and base/entropy.ts (node:crypto, which loads the streams
  // library, when they fall back to it) go with the store that mints ids and names temp files, not with every
  // start-up.
  const LATE_BASE = new Set(['ids.ts', 'hosttag.ts', 'entropy.ts'].map((f) => join(internal, 'base', f)))
  const KERNEL = eager(internal, ['clikit', 'base', join('cli', 'main.ts')]).filter((f) => !LATE_BASE.has(f))
  /** The composition root's lazy loaders. */
  const SERVICES = join(root, 'cmd', 'services.ts')
  /** Modules of ours: internal/, and the bin's own modules that load the rest lazily (services, autorecord). */
  const ours = (importer) => importer.startsWith(internal) || importer.startsWith(join(root, 'cmd'))
  /** The store's read path, which the hot commands need. */
  const STORE_READ = join(internal, 'store', 'store.ts')
  /** Who the caller is: resolved by the kernel on every command that opens the store, so it rides with it. */
  const IDENTITY = join(internal, 'domain', 'identity', 'identity.ts')
  /**
   * The whole store, as one more chunk (the git adapter stays behind ctx.git()), with the git config reader
   * that everyday commands and the GitHub slice share (alone it was a chunk of its own).
   */
  const STORE = eager(internal, [
    'store',
    'format',
    ...['task', 'claims', 'questions', 'events', 'identity', 'notes', 'project', 'worktree'].map((n) =>
      join('domain', n),
    ),
    join('adapters', 'git', 'config.ts'),
  ])
  /** What each group reaches besides its commands. */
  const REACH = {
    meta: KERNEL,
    hot: [...KERNEL, STORE_READ, IDENTITY],
    core: [...KERNEL, ...STORE, 'dacli-group:hot', 'dacli-group:write'],
    // Not the whole store: measured on 10,000 tasks, a claim's, a check's or an edit's modules loaded in 26 ms
    // instead of 29-30 (the rest of the store was a 205 kB chunk; what they import of it is 54 kB).
    write: [...KERNEL, 'dacli-group:hot'],
    search: [...KERNEL, 'dacli-group:hot'],
    brief: [...KERNEL, ...STORE, 'dacli-group:hot'],
    rare: [...KERNEL, ...STORE, 'dacli-group:hot', 'dacli-group:core', 'dacli-group:write'],
  }
  /** What a lazily loaded module of ours reaches besides its own imports. */
  const reachOf = (file) => {
    if (file === STORE_READ || file === IDENTITY) return KERNEL
    const out = [...KERNEL]
    if (/[\\/]internal[\\/](store|format|domain|adapters|features)[\\/]/.test(file) || file === SERVICES)
      out.push(...STORE, 'dacli-group:hot')
    if (/[\\/]internal[\\/]features[\\/]/.test(file)) out.push('dacli-group:core')
    return out
  }
  const imports = (list) => list.map((m) => `import ${JSON.stringify(m)}\n`).join('')
  const alias = (e) => `${e.name}_${e.decl.path.replace(/[^a-z0-9]+/g, '_')}`
  const groups = new Map()
  for (const e of entries) {
    const g = groupOf(e.decl)
    if (!groups.has(g)) groups.set(g, [])
    groups.get(g).push(e)
  }

  return {
    name: 'dacli-chunks',
    setup(b) {
      b.onLoad({ filter: /[\\/]internal[\\/]cli[\\/]manifest\.gen\.ts$/ }, (args) => {
        let text = readFileSync(args.path, 'utf8')
        for (const [g, list] of groups) {
          for (const e of list) {
            const spec = e.spec.startsWith('.') ? e.spec : `./${e.spec}`
            const from = `import(${JSON.stringify(spec)}).then((m) => m.${e.name})`
            if (!text.includes(from)) throw new Error(`manifest.gen.ts has no loader for ${e.decl.path}`)
            text = text.replace(from, `import("dacli-group:${g}").then((m) => m.${alias(e)})`)
          }
        }
        return { contents: text, loader: 'ts', resolveDir: cliDir }
      })
      b.onResolve({ filter: /^dacli-group:/ }, (args) => ({
        path: args.path.slice('dacli-group:'.length),
        namespace: 'dacli-group',
      }))
      // The store's lazy loader (services.ts) takes it from the hot group: the hot commands have it loaded.
      b.onResolve({ filter: /^\.\.\/internal\/store\/store\.js$/ }, (args) =>
        args.kind === 'dynamic-import' && args.importer === SERVICES
          ? { path: 'hot', namespace: 'dacli-group' }
          : undefined,
      )
      // So does the kernel's identity lookup (invoke.ts): every command that opens the store asks it.
      b.onResolve({ filter: /^\.\.\/domain\/identity\/identity\.js$/ }, (args) =>
        args.kind === 'dynamic-import' && args.importer === join(internal, 'clikit', 'invoke.ts')
          ? { path: 'hot', namespace: 'dacli-group' }
          : undefined,
      )
      b.onLoad({ filter: /.*/, namespace: 'dacli-group' }, (args) => ({
        contents:
          imports(REACH[args.path]) +
          (args.path === 'hot'
            ? // Everything identity.ts exports: invoke.ts's import() of it resolves here, and a name left out would
              // be undefined in the bundle only (the sources, and so the type check, see it).
              `export { Store } from ${JSON.stringify(STORE_READ)}\nexport * from ${JSON.stringify(IDENTITY)}\n`
            : '') +
          (groups.get(args.path) ?? [])
            .map(
              (e) =>
                `export { ${e.name} as ${alias(e)} } from ${JSON.stringify(join(cliDir, e.spec).replace(/\.js$/, '.ts'))}\n`,
            )
            .join(''),
        loader: 'ts',
        resolveDir: cliDir,
      }))
      // A module of ours loaded with import() is reached through a wrapper that also reaches the kernel and the
      // store (the module itself is untouched, so its static importers reach nothing more).
      b.onResolve({ filter: /^\./ }, (args) => {
        if (args.kind !== 'dynamic-import' || !ours(args.importer)) return undefined
        return { path: resolve(dirname(args.importer), args.path).replace(/\.js$/, '.ts'), namespace: 'dacli-lazy' }
      })
      // The bin reaches the whole kernel too, so it shares the kernel's chunk: a kernel module the bin did not
      // reach (one only commands use) was otherwise a chunk of its own, loaded by every command. The imports go
      // on the first line, so the source map stays aligned.
      b.onLoad({ filter: /[\\/]cmd[\\/]dacli\.ts$/ }, (args) => ({
        contents: imports(KERNEL).replaceAll('\n', ';') + readFileSync(args.path, 'utf8'),
        loader: 'ts',
        resolveDir: dirname(args.path),
      }))
      // A CommonJS package loaded with import() is reached through a wrapper that also reaches the kernel: an
      // entry that did not reach it gave esbuild's runtime helpers a chunk of their own, loaded by every command.
      b.onResolve({ filter: CJS_LAZY }, (args) =>
        args.kind === 'dynamic-import' && ours(args.importer)
          ? { path: args.path, namespace: 'dacli-lazy-cjs' }
          : undefined,
      )
      b.onLoad({ filter: /.*/, namespace: 'dacli-lazy-cjs' }, (args) => ({
        contents: `${imports(KERNEL)}export { default } from ${JSON.stringify(args.path)}\n`,
        loader: 'ts',
        resolveDir: root,
      }))
      b.onLoad({ filter: /.*/, namespace: 'dacli-lazy' }, (args) => ({
        contents: `${imports(reachOf(args.path))}export * from ${JSON.stringify(args.path)}\n`,
        loader: 'ts',
        resolveDir: dirname(args.path),
      }))
    },
  }
}
