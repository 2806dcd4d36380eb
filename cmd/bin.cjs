#!/usr/bin/env node
// The installed bin (build/dacli.js; scripts/build.mjs copies this file there). It loads the bundle's chunks
// (build/chunks/, CommonJS) itself: each through vm.Script with the V8 code cache the build made for it
// (`<chunk>.cache`), so a start-up deserializes compiled code instead of parsing every chunk from source. Node 20
// has no compile cache of its own (module.enableCompileCache came with Node 22.1). A cache V8 does not accept (another
// Node version, other V8 flags, a chunk changed since) is ignored, and that chunk is compiled from source as before.
// V8 checks a cache's header (its version, flags, source length and payload length) but not every byte of the
// rest: a cache is trusted as the chunk beside it is, both written by the build (a checksum of the caches, in
// JavaScript, cost 3-5 ms of every start-up, a third of what they save). NODE_DEBUG=dacli names each chunk as it loads.
'use strict'

const fs = require('node:fs')
const path = require('node:path')
const vm = require('node:vm')
const debug = require('node:util').debuglog('dacli')

/** The function a chunk's text becomes: CommonJS's module wrapper (the build makes each cache from this text too). */
function wrap(source) {
  return `(function (exports, require, module, __filename, __dirname) {${source}\n})`
}

/** The code cache in `file`, or undefined when there is none. */
function cacheOf(file) {
  try {
    return fs.readFileSync(file)
  } catch {
    return undefined
  }
}

/** Chunks loaded so far, by file: a chunk runs once, and a chunk required while it loads gets its exports so far. */
const loaded = new Map()

/** Load a chunk of the bundle (an absolute path): its exports. */
function load(file) {
  const known = loaded.get(file)
  if (known !== undefined) return known.exports
  const mod = { exports: {} }
  loaded.set(file, mod)
  // Without a cache, or with one V8 rejects, the chunk is compiled from its source.
  const cachedData = cacheOf(`${file}.cache`)
  const script = new vm.Script(wrap(fs.readFileSync(file, 'utf8')), { filename: file, cachedData })
  debug(
    'load %s%s',
    file,
    cachedData === undefined ? ' (no cache)' : script.cachedDataRejected ? ' (cache rejected)' : '',
  )
  const dir = path.dirname(file)
  // A chunk's own requires: another chunk beside it (./name.js) or one of Node's modules.
  const requireFrom = (id) => (id.startsWith('./') ? load(path.join(dir, id)) : require(id))
  script.runInThisContext().call(mod.exports, mod.exports, requireFrom, mod, file, dir)
  return mod.exports
}

if (require.main === module) load(path.join(__dirname, 'chunks', 'main.js'))
else module.exports = { wrap, load }
