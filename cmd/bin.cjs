#!/usr/bin/env node
// The installed bin (build/dacli.js; scripts/build.mjs copies this file there). It turns on Node's own compile
// cache where the running Node has one (module.enableCompileCache: Node 22.8 and later; from 22.1 the same cache
// is turned on by NODE_COMPILE_CACHE, which Node reads itself), then loads the bundle's entry chunk, plain
// CommonJS that requires the other chunks as it needs them. On Node 20 there is no such cache: every chunk is
// compiled from source, as any CommonJS module is. Node keeps the cache in its own folder (NODE_COMPILE_CACHE, else
// the system's temp folder), checks every entry against the source it was made from, and ignores one it cannot use
// (NODE_DISABLE_COMPILE_CACHE=1 turns it off). NODE_DEBUG=module names each chunk as it loads.
//
// The chunks are not minified, so a stack trace names readable code; each chunk has a source map beside it, which
// DACLI_DEBUG=1 (the switch that prints a failure's stack) turns on, so the stack names the source files' lines
// (NODE_OPTIONS=--enable-source-maps does the same for any run). Off by default: reading maps costs start-up time.
'use strict'

const { enableCompileCache } = require('node:module')

if (typeof enableCompileCache === 'function') enableCompileCache()
if (process.env.DACLI_DEBUG === '1') process.setSourceMapsEnabled(true)
require('./chunks/main.js')
