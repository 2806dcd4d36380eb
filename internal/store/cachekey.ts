// The cache key: a secret of this clone that every section of a parse cache is authenticated with (FORMAT.md, "The
// cache"). The caches live in the work tree, which any agent can write; a section whose code does not verify under
// this key is never served, so a value planted in `.dacli/cache/` — a title, a status, an owner no task file holds —
// never reaches an answer. The key lives where a work tree writer cannot reach, as the root key does: the clone's
// git directory (`dacli/cache-key`), else the user's configuration directory (`dacli/cache-keys/<workspace id>`).
// Where it can be neither read nor made, no cache is read or written (it only costs speed).

import { createHmac, timingSafeEqual } from 'node:crypto'
import * as fs from 'node:fs'
import * as os from 'node:os'
import * as path from 'node:path'
import { createOnce } from '../base/createonce.js'
import { randomBytesOf, randomHex } from '../base/entropy.js'
import type { Proc } from '../base/system.js'
import { WORKSPACE_ID } from './workspace.js'

type Env = Readonly<Record<string, string | undefined>>

/** The user's configuration directory (XDG), or null when neither XDG_CONFIG_HOME nor a home is known. */
export function configHome(env: Env): string | null {
  const xdg = env.XDG_CONFIG_HOME
  if (xdg !== undefined && path.isAbsolute(xdg)) return xdg
  const home = env.HOME ?? os.homedir()
  return home === '' ? null : path.join(home, '.config')
}

/** What locates a workspace's cache key (a Store has all of it). */
export interface KeyPlace {
  readonly git: { readonly commonDir: string } | null
  readonly config: { readonly id: string }
  readonly env: Env
}

/** Where this clone keeps its cache key (null: no git directory and no configuration directory to keep it in). */
export function cacheKeyFile(place: KeyPlace): string | null {
  if (place.git !== null) return path.join(place.git.commonDir, 'dacli', 'cache-key')
  const cfg = configHome(place.env)
  return cfg === null || !WORKSPACE_ID.test(place.config.id)
    ? null
    : path.join(cfg, 'dacli', 'cache-keys', place.config.id)
}

const KEY_BYTES = 32
const KEY_TEXT = /^([A-Za-z0-9_-]{43})\n?$/

/**
 * What a small file beside the key holds, parsed by `parse` (null: nothing usable), remembered by the file's stamp
 * in `memo` (a server reads it once). A plain file of at most `max` bytes, never read through a link or waited on.
 */
function readKept<T>(
  file: string,
  max: number,
  memo: Map<string, { stamp: string; value: T }>,
  parse: (text: string) => T | null,
): T | null {
  let fd: number
  try {
    fd = fs.openSync(file, fs.constants.O_RDONLY | fs.constants.O_NONBLOCK | fs.constants.O_NOFOLLOW)
  } catch {
    return null
  }
  try {
    const st = fs.fstatSync(fd)
    if (!st.isFile() || st.size > max) return null
    const stamp = `${st.size}:${st.mtimeMs}:${st.ino}:${st.ctimeMs}`
    const kept = memo.get(file)
    if (kept !== undefined && kept.stamp === stamp) return kept.value
    const value = parse(fs.readFileSync(fd, 'utf8'))
    if (value !== null) memo.set(file, { stamp, value })
    return value
  } catch {
    return null
  } finally {
    fs.closeSync(fd)
  }
}

const keys = new Map<string, { stamp: string; value: Buffer }>()

/** The key kept in `file` (32 bytes as base64url, one line), or null. */
const readKey = (file: string): Buffer | null =>
  readKept(file, 64, keys, (text) => {
    const m = KEY_TEXT.exec(text)
    const key = m === null ? null : Buffer.from(m[1] as string, 'base64url')
    return key !== null && key.length === KEY_BYTES ? key : null
  })

/**
 * This clone's cache key, made on first use (a temp file linked into place, so of two processes making it at once
 * one key wins and both use it); null where it can be neither read nor made. A file there that holds no key is left
 * as it is (and no cache is used): it is not dacli's to replace.
 */
export function cacheKey(place: KeyPlace): Buffer | null {
  const file = cacheKeyFile(place)
  if (file === null) return null
  const have = readKey(file)
  if (have !== null) return have
  try {
    fs.lstatSync(file)
    return null // something is there that is no key
  } catch {
    // none yet: make it
  }
  try {
    fs.mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 })
    createOnce(file, `${randomBytesOf(KEY_BYTES).toString('base64url')}\n`, 0o600) // of two at once, one key wins
  } catch {
    return null
  }
  return readKey(file)
}

/**
 * What a Store hands its cache files: the clone's cache key, and which cache files were found whole under it. A
 * cache file every line of which verified once it had settled (unchanged for RACY_MS: any later write moves its
 * change time) is recorded by its stamp, beside the key (`<key file>.verified`); a command that finds the file with
 * that stamp reads it without checking its codes again, and so without loading node:crypto (5–10 ms of a command's
 * start). A file rewritten since, or changed in place (even within the clock tick of its writing: the record is made
 * only from a full check, never by the writer), has another stamp or fails that check.
 */
export interface CacheTrust {
  /** The key (made on first use); null: no cache is read or written. */
  key(): Buffer | null
  /** Whether the cache file `name` was found whole with exactly this stamp (`size:mtimeMs:ino:ctimeMs`). */
  verified(name: string, stamp: string): boolean
  /** Record that the cache file `name`, settled, was found whole with this stamp. */
  markVerified(name: string, stamp: string): void
}

const verifiedStamps = new Map<string, { stamp: string; value: Record<string, string> }>()

/** The stamps recorded in `file` (a JSON map of cache name → stamp), or an empty map. */
const readVerified = (file: string): Record<string, string> =>
  readKept(file, 1 << 20, verifiedStamps, (text) => {
    const v = JSON.parse(text) as unknown
    const map: Record<string, string> = Object.create(null)
    if (v !== null && typeof v === 'object' && !Array.isArray(v))
      for (const [k, s] of Object.entries(v)) if (typeof s === 'string') map[k] = s
    return map
  }) ?? {}

/** The trust of one workspace's caches (the key asked for once, when a cache file is first used). */
export function cacheTrust(place: KeyPlace, sys: Proc): CacheTrust {
  let key: Buffer | null | undefined
  const file = cacheKeyFile(place)
  const verifiedFile = file === null ? null : `${file}.verified`
  return {
    key() {
      if (key === undefined) key = cacheKey(place)
      return key
    },
    verified: (name, stamp) => verifiedFile !== null && readVerified(verifiedFile)[name] === stamp,
    markVerified(name, stamp) {
      if (verifiedFile === null) return
      const map = { ...readVerified(verifiedFile), [name]: stamp }
      const tmp = `${verifiedFile}.${sys.pid}.${randomHex(4)}.tmp`
      try {
        fs.writeFileSync(tmp, `${JSON.stringify(map)}\n`, { flag: 'wx', mode: 0o600 })
        fs.renameSync(tmp, verifiedFile) // two at once: one record is lost, which costs a check, never trust
      } catch {
        fs.rmSync(tmp, { force: true })
      }
    },
  }
}

/** Authenticates the lines of one cache file: what it is (`scope`: its header and name) and each line's bytes. */
export class LineSigner {
  constructor(
    private readonly key: Buffer,
    private readonly scope: string,
  ) {}

  /** A fresh code for one line; `update` it with the line's bytes, then `digest('base64url')`. */
  start() {
    return createHmac('sha256', this.key).update(this.scope)
  }

  /** Whether `code` (as a table of contents holds it) is the code of `bytes`. */
  verifies(bytes: Buffer, code: string): boolean {
    const want = Buffer.from(code, 'base64url')
    const got = this.start().update(bytes).digest()
    return want.length === got.length && timingSafeEqual(want, got)
  }
}

/** The code of a small cache file's body, bound to the file's name under `cache/`. */
const sealCode = (key: Buffer, name: string, body: string): Buffer =>
  createHmac('sha256', key).update(`dacli-sealed\n${name}\n`).update(body).digest()

/**
 * The text of a small cache file (`.dacli/cache/remote-claims.json`, `.dacli/cache/record-stat.json`,
 * `.dacli/cache/history.json`, a repository's issues under `.dacli/cache/github/`) sealed under the clone's cache
 * key: a first line holding the code of the file's name and body, then the body.
 */
export const seal = (key: Buffer, name: string, body: string): string =>
  `${sealCode(key, name, body).toString('base64url')}\n${body}`

/** The body of a sealed cache file's text, or null when its code does not verify (planted, edited, another clone's). */
export function unseal(key: Buffer, name: string, text: string): string | null {
  const nl = text.indexOf('\n')
  if (nl !== 43) return null
  const body = text.slice(nl + 1)
  const want = Buffer.from(text.slice(0, nl), 'base64url')
  const got = sealCode(key, name, body)
  return want.length === got.length && timingSafeEqual(want, got) ? body : null
}
