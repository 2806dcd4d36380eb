// Build time only: node:crypto, imported by our sources and bundled packages, is reached through a small
// stand-in module whose functions load it on first call.
//
// Why: in Node 20 an ES import of node:crypto loads it (~15 internal modules) and builds its ES module facade,
// which reads every export once, `webcrypto` included: ~2.5 ms of CPU on every start-up (measured against an
// empty module, 21 interleaved runs), while most commands never hash or sign anything. Other built-ins are
// cheap to import (node:fs is loaded with Node itself) and stay plain imports. The sources are unchanged (they
// still import `node:crypto`), and so are the tests, which run the sources.

import { createRequire } from 'node:module'

const requireHere = createRequire(import.meta.url)
const LAZY = /^(node:)?crypto$/

/**
 * The stand-in's ES module text: each function of the built-in (as Node has it at build time) as a function
 * that loads the built-in and calls it, and a default export that loads it on first property read. Classes and
 * values are not offered: importing one fails the build, so nothing can silently read an unloaded value.
 */
export function standIn(name) {
  const real = requireHere(name)
  const lines = [
    'import { createRequire as __dacliRequireOf } from "node:module"',
    'let loaded',
    `const load = () => (loaded ??= __dacliRequireOf(import.meta.url)(${JSON.stringify(name)}))`,
  ]
  for (const k of Object.keys(real).sort()) {
    if (typeof real[k] !== 'function' || !/^[a-z]\w*$/.test(k)) continue
    lines.push(`export function ${k}(...a) { return load().${k}(...a) }`)
  }
  lines.push('export default new Proxy({}, { get: (_, k) => load()[k] })', '')
  return lines.join('\n')
}

/** The esbuild plugin: every static import of node:crypto (ours and the bundled packages'). */
export function lazyBuiltins() {
  return {
    name: 'dacli-lazy-builtins',
    setup(b) {
      b.onResolve({ filter: LAZY }, (args) =>
        args.kind === 'import-statement' ? { path: 'node:crypto', namespace: 'dacli-builtin' } : undefined,
      )
      b.onLoad({ filter: /.*/, namespace: 'dacli-builtin' }, (args) => ({ contents: standIn(args.path), loader: 'js' }))
    },
  }
}
