// The page's files, built by scripts/build.mjs (esbuild) into build/board/ and
// read into memory when the server starts. Only these names are ever served:
// no request path reaches the file system.

import { createHash } from 'node:crypto'
import * as fs from 'node:fs'
import { fileURLToPath } from 'node:url'
import { gzipSync } from 'node:zlib'

export interface Asset {
  readonly type: string
  readonly body: Buffer
  readonly gzip: Buffer
  readonly etag: string
}

/** The files the build writes, by the name the page asks for. */
const ASSET_NAMES = {
  'index.html': 'text/html; charset=utf-8',
  'app.js': 'text/javascript; charset=utf-8',
  'app.css': 'text/css; charset=utf-8',
} as const

/** build/board/ next to the bundle (build/chunks/…), or in the repository when running from source (tests). */
function assetDir(): string {
  const candidates = [new URL('../board/', import.meta.url), new URL('../../build/board/', import.meta.url)]
  for (const c of candidates) {
    const dir = fileURLToPath(c)
    if (fs.existsSync(`${dir}index.html`)) return dir
  }
  throw new Error('the board page is not built (build/board/ is missing): run `npm run build`')
}

export function loadAssets(): Map<string, Asset> {
  const dir = assetDir()
  const out = new Map<string, Asset>()
  for (const [name, type] of Object.entries(ASSET_NAMES)) {
    const body = fs.readFileSync(`${dir}${name}`)
    const gzip = gzipSync(body, { level: 9 })
    out.set(name, { type, body, gzip, etag: `"${createHash('sha256').update(body).digest('base64url').slice(0, 16)}"` })
  }
  return out
}
