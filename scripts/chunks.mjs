// How the bin is cut into chunks (quality.md: start-up). esbuild's code splitting
// gives every set of importers its own chunk, which on this code base meant one
// chunk per source file: `dacli task list` loaded 28 ES modules, and loading a
// module costs about as much as compiling six kilobytes of code. This plugin
// shapes the import graph esbuild sees, at build time only (the sources and the
// tests are unchanged), so the hot paths load a handful of larger chunks:
//
//   - commands are bundled in groups (virtual modules re-exporting them; the
//     manifest's loaders import the group): `meta` (help, version: the cheapest
//     paths), `core` (the commands people and agents run all the time), `rare`
//     (GitHub, record, MCP, doctor, init: rare, each with heavy dependencies of
//     its own, which stay behind their own import());
//     The rare group (and a command's own lazily loaded helper) reaches the core
//     group, so the code they share with it is one chunk;
//   - every lazily loaded module of ours reaches the whole kernel, and every one
//     that uses the store reaches the whole store, so each of the two has a single
//     set of importers and becomes one chunk. (Our modules do no work at import
//     time, so importing one earlier than needed changes nothing but the order.)

import { readdirSync, readFileSync } from 'node:fs'
import { dirname, join, resolve } from 'node:path'

/** The group a command's module is bundled in. */
export function groupOf(decl) {
  const family = decl.path.split(' ')[0]
  if (['help', 'version', 'schema', 'catalog'].includes(decl.path)) return 'meta'
  if (['github', 'record', 'mcp', 'doctor', 'init'].includes(family) || decl.path === 'task log') return 'rare'
  return 'core'
}

/** Lazily loaded modules that use store code besides the groups: they reach the whole store. */
const STORE_SIDE = /[\\/]internal[\\/](store|gitx|runtime|github|features)[\\/]/

/** @param {{root: string, entries: {decl: {path: string}, spec: string, name: string}[]}} opts */
export function chunkPlugin({ root, entries }) {
  const cliDir = join(root, 'internal', 'cli')
  const kernel = join(cliDir, 'main.ts')
  const store = join(root, 'internal', 'store', 'index.ts')
  const alias = (e) => `${e.name}_${e.decl.path.replace(/[^a-z0-9]+/g, '_')}`
  const groups = new Map()
  for (const e of entries) {
    const g = groupOf(e.decl)
    if (!groups.has(g)) groups.set(g, [])
    groups.get(g).push(e)
  }
  const lazy = lazyModules(join(root, 'internal'))
  const prelude = (file, withStore) =>
    `import ${JSON.stringify(kernel)}\n${withStore ? `import ${JSON.stringify(store)}\n` : ''}${file}`

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
      b.onLoad({ filter: /.*/, namespace: 'dacli-group' }, (args) => ({
        contents:
          prelude(
            (groups.get(args.path) ?? [])
              .map(
                (e) =>
                  `export { ${e.name} as ${alias(e)} } from ${JSON.stringify(join(cliDir, e.spec).replace(/\.js$/, '.ts'))}\n`,
              )
              .join('') +
              (args.path === 'core'
                ? `export { Store } from ${JSON.stringify(join(root, 'internal', 'store', 'store.ts'))}\n`
                : ''),
            args.path !== 'meta',
          ) + (args.path === 'rare' ? 'import "dacli-group:core"\n' : ''),
        loader: 'ts',
        resolveDir: cliDir,
      }))
      // The store's lazy loader takes it from the core group, which hot commands have loaded already.
      b.onResolve({ filter: /^\.\.\/store\/store\.js$/ }, (args) =>
        args.kind === 'dynamic-import' && args.importer.endsWith(join('internal', 'runtime', 'services.ts'))
          ? { path: 'core', namespace: 'dacli-group' }
          : undefined,
      )
      b.onLoad({ filter: /[\\/]internal[\\/].*\.ts$/ }, (args) => {
        if (!lazy.has(args.path)) return undefined
        return {
          contents:
            (/[\\/]internal[\\/]features[\\/]/.test(args.path) ? 'import "dacli-group:core"\n' : '') +
            prelude(readFileSync(args.path, 'utf8'), STORE_SIDE.test(args.path)),
          loader: 'ts',
          resolveDir: dirname(args.path),
        }
      })
    },
  }
}

/** Our modules that some module of ours loads with import() (the manifest's command modules aside). */
function lazyModules(dir) {
  const out = new Set()
  for (const e of readdirSync(dir, { withFileTypes: true, recursive: true })) {
    const file = join(e.parentPath ?? e.path, e.name)
    if (!e.isFile() || !file.endsWith('.ts') || file.endsWith('.test.ts') || file.endsWith('manifest.gen.ts')) continue
    for (const m of readFileSync(file, 'utf8').matchAll(/\bimport\(\s*['"](\.[^'"]+)['"]\s*\)/g)) {
      out.add(resolve(dirname(file), m[1]).replace(/\.js$/, '.ts'))
    }
  }
  return out
}

/** The `require` line of the banner, kept only in chunks that use `require` (creating one costs time). */
export const REQUIRE_LINE =
  'import { createRequire as __dacliCreateRequire } from "node:module"; const require = __dacliCreateRequire(import.meta.url);'

/** Blank the banner's `require` line where nothing uses it (a blank line keeps the source maps aligned). */
export function dropUnusedRequire(text) {
  const at = text.indexOf(REQUIRE_LINE)
  if (at === -1) return text
  const rest = text.slice(0, at) + text.slice(at + REQUIRE_LINE.length)
  // A use is a call or a property of it, or the runtime helper's `typeof require` (not the word in a string).
  return /(?<![\w$.])require\s*[(.]|typeof require\b/.test(rest) ? text : rest
}
