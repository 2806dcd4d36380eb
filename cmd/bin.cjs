#!/usr/bin/env node
// The installed bin (build/dacli.js; scripts/build.mjs copies this file there). It turns on a compile cache, then
// loads the bundle's entry chunk, plain CommonJS that requires the other chunks as it needs them.
//
// Where the running Node has one (module.enableCompileCache: Node 22.8 and later; from 22.1 NODE_COMPILE_CACHE
// turns on the same cache, which Node reads itself), Node's own compile cache is used. Node 20 has none, so the bin
// keeps one the way Node 22 does: each chunk is compiled with V8's code cache for it when there is one, and V8's
// cache of a chunk compiled without one is written when the process ends (so it holds the functions that run used,
// not only the top level). The cache lives outside the package and the workspace, in NODE_COMPILE_CACHE when set,
// else in `dacli-compile-cache-<uid>` under the system's temp folder; a folder that is a link, is not a folder,
// is not the user's own or can be written by others is not used. An entry is named by the chunk's name and stamp
// (size, inode, modification and change times: any rewrite of the file changes its change time), and V8 checks its own version, flags and the source's length and rejects a cache it cannot use (the chunk
// is then compiled from source and its cache written again); a run that writes an entry removes those of other chunks
// left unwritten for 30 days (prune). NODE_DISABLE_COMPILE_CACHE=1 turns it off, as it
// turns off Node's. Measured on Node 20 (bench/results/latest.md): the commands that load the big chunks start
// ~0.3× `node -e 0` sooner.
//
// The chunks are not minified, so a stack trace names readable code; each chunk has a source map beside it, which
// DACLI_DEBUG=1 (the switch that prints a failure's stack) turns on, so the stack names the source files' lines
// (NODE_OPTIONS=--enable-source-maps does the same for any run). Off by default: reading maps costs start-up time.
// With source maps on, chunks are compiled by Node itself (which registers their maps), without the bin's cache.
// NODE_DEBUG=module names each chunk as it loads.
'use strict'

const Module = require('node:module')

/** What the bin writes in the cache folder: an entry, or the temp file of one being written. */
const ENTRY = /^[\w-]+-\d+-\d+-[\d.]+-[\d.]+(\.\d+\.tmp)?$/
/** An entry nothing has written for this long is removed, unless it belongs to the chunks of this install. */
const PRUNE_AFTER_MS = 30 * 24 * 3600 * 1000

const debug = process.env.DACLI_DEBUG === '1'
if (debug) process.setSourceMapsEnabled(true)
if (typeof Module.enableCompileCache === 'function') Module.enableCompileCache()
else if (
  process.env.NODE_DISABLE_COMPILE_CACHE !== '1' &&
  !debug &&
  !process.execArgv.includes('--enable-source-maps') &&
  !/--enable-source-maps/.test(process.env.NODE_OPTIONS ?? '')
) {
  codeCache(require('node:path').join(__dirname, 'chunks'))
}
require('./chunks/main.js')

/** Compile the chunks under `chunks` through V8's code cache, kept in a folder of the user's own. */
function codeCache(chunks) {
  const fs = require('node:fs')
  const path = require('node:path')
  const vm = require('node:vm')
  const uid = typeof process.getuid === 'function' ? process.getuid() : -1
  const dir = process.env.NODE_COMPILE_CACHE || path.join(require('node:os').tmpdir(), `dacli-compile-cache-${uid}`)
  try {
    fs.mkdirSync(dir, { recursive: true, mode: 0o700 })
    const st = fs.lstatSync(dir)
    if (!st.isDirectory() || (uid !== -1 && st.uid !== uid) || (st.mode & 0o022) !== 0) return
  } catch {
    return // no folder to keep it in: every chunk is compiled from source
  }
  const unsaved = []
  const compile = Module.prototype._compile
  Module.prototype._compile = function (content, filename) {
    if (path.dirname(filename) !== chunks) return compile.call(this, content, filename)
    let file
    try {
      file = path.join(dir, entryName(fs, path, filename))
    } catch {
      return compile.call(this, content, filename)
    }
    let cachedData
    try {
      cachedData = fs.readFileSync(file)
    } catch {
      cachedData = undefined // none yet
    }
    const script = new vm.Script(Module.wrap(content), { filename, cachedData })
    if (cachedData === undefined || script.cachedDataRejected) unsaved.push({ file, script })
    const fn = script.runInThisContext({ displayErrors: true })
    const req = (id) => this.require(id)
    req.resolve = (request, options) => Module._resolveFilename(request, this, false, options)
    req.main = require.main
    req.cache = Module._cache
    return fn.call(this.exports, this.exports, req, this, filename, path.dirname(filename))
  }
  process.once('exit', () => {
    if (unsaved.length === 0) return
    for (const { file, script } of unsaved) {
      const tmp = `${file}.${process.pid}.tmp`
      try {
        fs.writeFileSync(tmp, script.createCachedData(), { flag: 'wx', mode: 0o600 })
        fs.renameSync(tmp, file)
      } catch {
        try {
          fs.rmSync(tmp, { force: true })
        } catch {
          // a cache not written costs the next run only speed
        }
      }
    }
    prune(fs, path, dir, chunks)
  })
}

/** A chunk's entry in the cache folder: its name and its file's stamp (any rewrite of the file changes the stamp). */
function entryName(fs, path, chunk) {
  const st = fs.statSync(chunk)
  return `${path.basename(chunk, '.js')}-${st.size}-${st.ino}-${st.mtimeMs}-${st.ctimeMs}`
}

/**
 * Every install, rebuild and upgrade names its chunks' entries anew, so the folder would only grow: after a run that
 * wrote an entry (never on a warm start, which does not list the folder), the entries of other chunks that have not
 * been written for 30 days are removed, as are temp files left that long. This install's own entries stay however old
 * (a removed one would only be compiled and written again), and so does anything the bin does not write (Node's own
 * cache may share a NODE_COMPILE_CACHE folder).
 */
function prune(fs, path, dir, chunks) {
  try {
    const own = new Set()
    for (const f of fs.readdirSync(chunks)) {
      if (f.endsWith('.js')) own.add(entryName(fs, path, path.join(chunks, f)))
    }
    const before = Date.now() - PRUNE_AFTER_MS
    for (const e of fs.readdirSync(dir)) {
      if (own.has(e) || !ENTRY.test(e)) continue
      const at = path.join(dir, e)
      const st = fs.lstatSync(at)
      if (st.isFile() && st.mtimeMs < before) fs.rmSync(at, { force: true })
    }
  } catch {
    // an unpruned folder costs only disk space
  }
}
