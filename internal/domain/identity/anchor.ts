// The trust anchor: which root keys this clone believes. Every identity and every signed event chains up
// to a root key, and root keys are published in the work tree (`.dacli/agents/a-root.keys/<fp>.pub`), where
// anyone who can write the work tree can plant one. So a published key counts only when this clone's
// anchor vouches for it, and the anchor lives where a work tree writer cannot reach:
//
// - the clone's git directory, `dacli/trust` (beside the clone's own root key, `dacli/root-key`);
// - the user's configuration directory, `$XDG_CONFIG_HOME/dacli/trust/<workspace id>` (else
//   `~/.config/…`), so the user's decision outlives one clone.
//
// Each holds full SHA-256 fingerprints of public keys, one a line (`sha256:<64 hex>`; `#` starts a
// comment). The clone's own root key, whose private half is in the git directory, is always anchored.
// `init` pins the key it creates; a fresh clone learns another clone's key only by `dacli trust accept`,
// an explicit step that prints what it pins (trust on first use). Retirements this clone has seen signed
// are remembered in `dacli/retired` in the git directory, so an identity restored to an earlier,
// validly signed, unretired state is still retired here.

import { createHash, randomBytes } from 'node:crypto'
import * as fs from 'node:fs'
import * as path from 'node:path'
import type { GitInfo } from '../../adapters/git/discover.js'
import { cmd } from '../../base/commands.js'
import type { Proc } from '../../base/system.js'
import { configHome } from '../../store/cachekey.js'
import { linkOnPath } from '../../store/fsio.js'
import { WORKSPACE_ID } from '../../store/workspace.js'
import { isPublicKey, publicKeyOfSeed, rootKeysDir, rootSigner, shortFingerprint } from './signing.js'

/** What the anchor needs of an opened workspace (a Store has all of it). */
export interface AnchorPlace {
  readonly dir: string
  readonly git: Pick<GitInfo, 'commonDir'> | null
  readonly config: { readonly id: string }
  readonly env: Readonly<Record<string, string | undefined>>
  readonly system: Proc
}

const PIN_RE = /^sha256:[0-9a-f]{64}$/

/** A public key's full fingerprint, `sha256:<64 hex>` (what the anchor pins). */
export const fingerprintOf = (publicKey: string): string =>
  `sha256:${createHash('sha256').update(publicKey).digest('hex')}`

/** The two anchor files of a workspace (null where there is none: no git, no home, an id unfit for a name). */
export function anchorFiles(place: AnchorPlace): { clone: string | null; user: string | null } {
  const cfg = configHome(place.env)
  const id = place.config.id
  return {
    clone: place.git === null ? null : path.join(place.git.commonDir, 'dacli', 'trust'),
    user: cfg === null || !WORKSPACE_ID.test(id) ? null : path.join(cfg, 'dacli', 'trust', id),
  }
}

/** Where this clone keeps its root key: the git directory; without git, the user's configuration directory. */
export function rootKeyFile(place: AnchorPlace): string | null {
  if (place.git !== null) return path.join(place.git.commonDir, 'dacli', 'root-key')
  const { user } = anchorFiles(place)
  return user === null ? null : path.join(path.dirname(path.dirname(user)), 'root-keys', path.basename(user))
}

/** A regular file's text, or null (missing, a link, a FIFO or anything else that is not a plain file). */
function readPlain(file: string): string | null {
  try {
    const st = fs.lstatSync(file)
    if (!st.isFile() || st.size > 1 << 20) return null
    return fs.readFileSync(file, 'utf8')
  } catch {
    return null
  }
}

const pinsIn = (text: string | null): string[] =>
  (text ?? '')
    .split('\n')
    .map((l) => l.replace(/#.*/, '').trim())
    .filter((l) => PIN_RE.test(l))

/** This clone's own root public key (its private half is outside the work tree), or null when it has none yet. */
export function ownRootKey(place: AnchorPlace): string | null {
  const file = rootKeyFile(place)
  const text = file === null ? null : readPlain(file)
  if (text === null) return null
  const seed = Buffer.from(text.trim(), 'base64url')
  return seed.length === 32 ? publicKeyOfSeed(seed) : null
}

export interface Anchor {
  /** Pinned fingerprints, with where each is pinned. */
  pins: { fingerprint: string; where: 'clone' | 'user' | 'own-key' }[]
  /** The fingerprints the anchor files pin (the clone's own key among them where `init` pinned it). */
  filed: string[]
  files: { clone: string | null; user: string | null }
}

/** What this clone's anchor vouches for. */
export function readAnchor(place: AnchorPlace): Anchor {
  const files = anchorFiles(place)
  const pins: Anchor['pins'] = []
  const add = (fingerprint: string, where: Anchor['pins'][number]['where']) => {
    if (!pins.some((p) => p.fingerprint === fingerprint)) pins.push({ fingerprint, where })
  }
  const own = ownRootKey(place)
  if (own !== null) add(fingerprintOf(own), 'own-key')
  const filed = new Set<string>()
  for (const f of pinsIn(files.clone === null ? null : readPlain(files.clone))) {
    add(f, 'clone')
    filed.add(f)
  }
  for (const f of pinsIn(files.user === null ? null : readPlain(files.user))) {
    add(f, 'user')
    filed.add(f)
  }
  return { pins, filed: [...filed], files }
}

export interface PublishedKey {
  /** The file, relative to the workspace folder's parent (`.dacli/agents/a-root.keys/<fp>.pub`). */
  file: string
  /** The key, or null when the file does not hold one. */
  key: string | null
  fingerprint: string | null
  /** Why the file is not a usable key (not a key, misnamed, not a regular file), or null. */
  problem: string | null
}

/** Every file under `a-root.keys/` (never through a link, never a FIFO), usable or not. */
export function publishedRootKeys(dacliDir: string): PublishedKey[] {
  const dir = rootKeysDir(dacliDir)
  const rel = (n: string) => path.join(path.basename(dacliDir), 'agents', 'a-root.keys', n).split(path.sep).join('/')
  if (linkOnPath(dir, dacliDir) !== null) return []
  let names: string[]
  try {
    names = fs.readdirSync(dir)
  } catch {
    return []
  }
  const out: PublishedKey[] = []
  for (const n of names.sort()) {
    if (n.startsWith('.')) continue
    const text = readPlain(path.join(dir, n))
    const key = text?.trim() ?? ''
    if (text === null) {
      out.push({ file: rel(n), key: null, fingerprint: null, problem: 'not a regular file' })
    } else if (!isPublicKey(key)) {
      out.push({ file: rel(n), key: null, fingerprint: null, problem: 'does not hold an ed25519 public key' })
    } else if (`${shortFingerprint(key)}.pub` !== n) {
      out.push({
        file: rel(n),
        key,
        fingerprint: fingerprintOf(key),
        problem: `is named for another key (its key's file name is ${shortFingerprint(key)}.pub)`,
      })
    } else {
      out.push({ file: rel(n), key, fingerprint: fingerprintOf(key), problem: null })
    }
  }
  return out
}

/** The root keys this clone trusts: its own and the published keys its anchor pins. */
export function trustedRootKeys(place: AnchorPlace): string[] {
  const anchor = readAnchor(place)
  const pinned = new Set(anchor.pins.map((p) => p.fingerprint))
  const out: string[] = []
  const own = ownRootKey(place)
  if (own !== null) out.push(own)
  for (const k of publishedRootKeys(place.dir)) {
    if (k.problem === null && k.key !== null && pinned.has(k.fingerprint ?? '') && !out.includes(k.key)) {
      out.push(k.key)
    }
  }
  return out
}

/** Append `line` to `file` unless present, atomically (a temp file and a rename), the file's folder made 0700. */
function addLine(file: string, line: string, header: string): boolean {
  const text = readPlain(file)
  const st = fs.lstatSync(file, { throwIfNoEntry: false })
  if (st !== undefined && !st.isFile()) throw new Error(`${file} is not a regular file`)
  const key = line.split(' ')[0] ?? ''
  if ((text ?? '').split('\n').some((l) => l.replace(/#.*/, '').trim() === key)) return false
  fs.mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 })
  const next = `${text ?? header}${text !== null && !text.endsWith('\n') ? '\n' : ''}${line}\n`
  const tmp = `${file}.tmp-${randomBytes(6).toString('hex')}`
  fs.writeFileSync(tmp, next, { mode: 0o600, flag: 'wx' })
  fs.renameSync(tmp, file)
  return true
}

/** Pin `fingerprint` in both anchor files (where they exist). Returns the files written. */
export function pin(place: AnchorPlace, fingerprint: string, comment: string): string[] {
  if (!PIN_RE.test(fingerprint)) throw new Error(`not a fingerprint: ${fingerprint}`)
  const files = anchorFiles(place)
  const header = `# the dacli trust anchor: the root keys this clone believes (sha256 of each public key); see ${cmd('trust show')}\n`
  const written: string[] = []
  for (const f of [files.clone, files.user]) {
    if (f !== null && addLine(f, `${fingerprint}  # ${comment.replace(/[\r\n]/g, ' ')}`, header)) written.push(f)
  }
  return written
}

// ------------------------------------------------------------------ remembered retirements

const retiredFile = (place: AnchorPlace): string | null =>
  place.git === null ? null : path.join(place.git.commonDir, 'dacli', 'retired')

/** Identities this clone has seen retired by a valid signature (never to be revived by an edit). */
export function rememberedRetired(place: AnchorPlace): Set<string> {
  const f = retiredFile(place)
  const text = f === null ? null : readPlain(f)
  return new Set(
    (text ?? '')
      .split('\n')
      .map((l) => l.trim())
      .filter((l) => /^a-[a-z0-9-]+$/.test(l)),
  )
}

/** Remember that `id` was retired (by a signature this clone verified). */
export function rememberRetired(place: AnchorPlace, id: string): void {
  const f = retiredFile(place)
  if (f === null || !/^a-[a-z0-9-]+$/.test(id)) return
  try {
    addLine(f, id, '# identities this clone has seen retired (dacli); an edit of their files cannot revive them\n')
  } catch {
    // best effort: the signature on the file still says it is retired
  }
}

/**
 * For the clone that creates a workspace: make its root key (rootSigner publishes it) and pin it in both
 * anchor files, so the workspace starts anchored. Returns the key's fingerprint and the files written.
 */
export function anchorNewWorkspace(place: AnchorPlace): { fingerprint: string; files: string[] } | null {
  const keyFile = rootKeyFile(place)
  if (keyFile === null) return null
  const signer = rootSigner(place.system, place.dir, keyFile)
  const fingerprint = fingerprintOf(signer.publicKey)
  return { fingerprint, files: pin(place, fingerprint, 'the key of the clone that created the workspace') }
}
