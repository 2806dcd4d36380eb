// Build time only: four of Node's built-in modules (crypto, os, child_process, fs) are imported through stand-in
// modules, so that an invocation loads only what it uses. The sources are unchanged (they still import the
// built-ins), and so are the tests, which run the sources.
//
// Why: in Node 20 an ES import of a built-in builds its ES module facade, which reads every export once.
// - node:crypto: the import loads it (~15 internal modules) and the facade reads `webcrypto` too, ~2.5 ms of CPU
//   on every start-up (measured against an empty module, 21 interleaved runs), while most commands never hash or
//   sign. Its stand-in has one function per crypto function, loading the module on the first call.
// - node:os (the host name, the temp folder) and node:child_process (git, --verify; it loads node:net, dgram and
//   the streams library) are needed by few invocations; they get the same kind of stand-in.
// - node:fs is loaded with Node itself, but its facade reads the `ReadStream` and `promises` getters, which load
//   the streams library, node:net and fs/promises: ~2 ms of a `--version` (CPU profiles, 8 runs). Its stand-in
//   takes the module through `require` and re-exports its values; exports that are getters are left out, except
//   the functions among them, offered as functions that call through.
// What a stand-in does not offer fails the build (a named import) or is reported by esbuild as an import that is
// always undefined (a namespace member), which scripts/build.mjs turns into a failed build.

import { createRequire } from 'node:module'
import { join, sep } from 'node:path'

const requireHere = createRequire(import.meta.url)

const header = (name) => [
  'import { createRequire as __dacliRequireOf } from "node:module"',
  `const load = () => __dacliRequireOf(import.meta.url)(${JSON.stringify(name)})`,
]

/** The ES module text of the stand-in for `node:crypto`, `node:os`, `node:child_process` or `node:fs`. */
export function standIn(name) {
  const real = requireHere(name)
  const keys = Object.keys(real).sort()
  const callable = (k) => typeof real[k] === 'function' && /^[a-z]\w*$/.test(k)
  if (name !== 'node:fs') {
    return [
      ...header(name),
      'let loaded',
      'const mod = () => (loaded ??= load())',
      ...keys.filter(callable).map((k) => `export function ${k}(...a) { return mod().${k}(...a) }`),
      'export default new Proxy({}, { get: (_, k) => mod()[k] })',
      '',
    ].join('\n')
  }
  const getter = (k) => Object.getOwnPropertyDescriptor(real, k)?.get !== undefined
  return [
    ...header(name),
    'const mod = load()',
    ...keys.filter((k) => !getter(k) && /^[A-Za-z_$][\w$]*$/.test(k)).map((k) => `export const ${k} = mod.${k}`),
    ...keys.filter((k) => getter(k) && callable(k)).map((k) => `export function ${k}(...a) { return mod.${k}(...a) }`),
    'export default mod',
    '',
  ].join('\n')
}

/**
 * The esbuild plugin: static imports of node:crypto, node:os and node:child_process (ours and the bundled packages')
 * and of node:fs (ours: the
 * packages' own uses of fs are theirs to make) get the stand-ins.
 */
export function lazyBuiltins({ root }) {
  const dirs = [join(root, 'internal') + sep, join(root, 'cmd') + sep]
  const ours = (p) => dirs.some((d) => p.startsWith(d))
  return {
    name: 'dacli-lazy-builtins',
    setup(b) {
      b.onResolve({ filter: /^(node:)?(crypto|fs|os|child_process)$/ }, (args) => {
        if (args.kind !== 'import-statement') return undefined
        const name = `node:${args.path.replace(/^node:/, '')}`
        // The build's own wrapper modules (scripts/chunks.mjs, not files) count as ours.
        if (name === 'node:fs' && args.namespace === 'file' && !ours(args.importer)) return undefined
        return { path: name, namespace: 'dacli-builtin' }
      })
      b.onLoad({ filter: /.*/, namespace: 'dacli-builtin' }, (args) => ({ contents: standIn(args.path), loader: 'js' }))
    },
  }
}
