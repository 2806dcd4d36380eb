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
// is then compiled from source and its cache written again). NODE_DISABLE_COMPILE_CACHE=1 turns it off, as it
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
      const st = fs.statSync(filename)
      file = path.join(dir, `${path.basename(filename, '.js')}-${st.size}-${st.ino}-${st.mtimeMs}-${st.ctimeMs}`)
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
  })
}
