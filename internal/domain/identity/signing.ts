// Verifiable authorship without stored secrets.
//
// - An agent's key pair is derived from its token (Ed25519 from HKDF-SHA256 of the token), so only the
//   token's holder can sign; the agent file stores only the public key.
// - The root identity has no token: each clone keeps a random root key outside the work tree (in the git
//   directory, `dacli/root-key`; without git in the user's configuration directory, anchor.ts rootKeyFile) and
//   publishes its public key as
//   `.dacli/agents/a-root.keys/<fingerprint>.pub` (one file per clone, so two clones never conflict).
// - Signatures are over canonical JSON (keys sorted), written as `ed25519:<base64url>`.
//
// node:crypto does all of it (no library): HKDF, Ed25519 keys from raw bytes through their fixed DER
// prefixes, sign and verify.

import {
  createHash,
  createPrivateKey,
  createPublicKey,
  hkdfSync,
  type KeyObject,
  randomBytes,
  sign,
  verify,
} from 'node:crypto'
import * as fs from 'node:fs'
import * as path from 'node:path'
import { canonicalJSON } from '../../base/canonical.js'
import { cmd } from '../../base/commands.js'
import { FailureError } from '../../base/errors.js'
import type { Proc } from '../../base/system.js'
import { atomicWrite, mkdirNoLinks } from '../../store/fsio.js'

/** PKCS#8 and SPKI DER headers of an Ed25519 key; the raw 32 bytes follow. */
const PKCS8 = Buffer.from('302e020100300506032b657004220420', 'hex')
const SPKI = Buffer.from('302a300506032b6570032100', 'hex')
const PREFIX = 'ed25519:'

export interface Signer {
  /** The public key, `ed25519:<base64url>`. */
  readonly publicKey: string
  /** `ed25519:<base64url>` over the canonical JSON of `content`. */
  sign(content: unknown): string
}

const privateKeyOf = (seed: Buffer) =>
  createPrivateKey({ key: Buffer.concat([PKCS8, seed]), format: 'der', type: 'pkcs8' })
const publicOf = (key: KeyObject) =>
  `${PREFIX}${createPublicKey(key).export({ format: 'der', type: 'spki' }).subarray(SPKI.length).toString('base64url')}`

/** The public key (`ed25519:…`) of a 32-byte private seed. */
export const publicKeyOfSeed = (seed: Buffer): string => publicOf(privateKeyOf(seed))

function signerOf(seed: Buffer): Signer {
  const key = privateKeyOf(seed)
  return {
    publicKey: publicOf(key),
    sign: (content) => `${PREFIX}${sign(null, Buffer.from(canonicalJSON(content)), key).toString('base64url')}`,
  }
}

/** An agent's signer, derived from its token (the same token always gives the same key). */
export function agentSigner(token: string): Signer {
  // not a command line: the key derivation's label, fixed for good (a new label would change every agent key)
  return signerOf(Buffer.from(hkdfSync('sha256', token, 'dacli', 'dacli agent signing key v1', 32)))
}

const publicKeys = new Map<string, KeyObject | null>()

function publicKeyOf(text: string): KeyObject | null {
  let k = publicKeys.get(text)
  if (k === undefined) {
    k = null
    const raw = text.startsWith(PREFIX) ? Buffer.from(text.slice(PREFIX.length), 'base64url') : null
    if (raw !== null && raw.length === 32) {
      try {
        k = createPublicKey({ key: Buffer.concat([SPKI, raw]), format: 'der', type: 'spki' })
      } catch {
        k = null
      }
    }
    publicKeys.set(text, k)
  }
  return k
}

/** Is `signature` a signature of `content` by one of `keys`? (Results are remembered for this process.) */
const verified = new Map<string, boolean>()
export function verifySignature(content: unknown, signature: unknown, keys: readonly string[]): boolean {
  if (typeof signature !== 'string' || !signature.startsWith(PREFIX)) return false
  const data = canonicalJSON(content)
  const memo = `${signature}\u0000${keys.join(',')}\u0000${createHash('sha256').update(data).digest('base64')}`
  const hit = verified.get(memo)
  if (hit !== undefined) return hit
  const sig = Buffer.from(signature.slice(PREFIX.length), 'base64url')
  let ok = false
  for (const k of keys) {
    const key = publicKeyOf(k)
    if (key !== null && sig.length === 64 && verify(null, Buffer.from(data), key, sig)) {
      ok = true
      break
    }
  }
  if (verified.size > 10_000) verified.clear()
  verified.set(memo, ok)
  return ok
}

export const isPublicKey = (v: unknown): v is string => typeof v === 'string' && publicKeyOf(v) !== null

// ------------------------------------------------------------------ the root key

/** The folder holding the root identity's published public keys. */
export const rootKeysDir = (dacliDir: string) => path.join(dacliDir, 'agents', 'a-root.keys')

/** A key's short fingerprint, the name of its file under `a-root.keys/` (the first 16 hex digits of its SHA-256). */
export const shortFingerprint = (publicKey: string) => createHash('sha256').update(publicKey).digest('hex').slice(0, 16)

/**
 * This clone's root signer: the key in `keyFile` (created on first need, mode 0600), its public key
 * published under `agents/a-root.keys/` so every clone can verify what this one signs.
 */
export function rootSigner(sys: Proc, dacliDir: string, keyFile: string, attempt = 0): Signer {
  let seed: Buffer | null = null
  try {
    seed = Buffer.from(fs.readFileSync(keyFile, 'utf8').trim(), 'base64url')
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'ENOENT') {
      throw new FailureError(`cannot read the root key ${keyFile}`, { cause: e })
    }
  }
  if (seed !== null && seed.length !== 32) {
    // Another process may be between creating the file and writing it: look again a few times, then say what is
    // wrong. Never make a new key over it: what the old key signed must stay verifiable by its published half.
    if (attempt < 5) {
      Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 20)
      return rootSigner(sys, dacliDir, keyFile, attempt + 1)
    }
    throw new FailureError(
      `the root key file ${keyFile} holds no key (${seed.length} bytes where a key is 32): written by a process that stopped halfway, or edited`,
      {
        details: { path: keyFile },
        next: [
          `move ${keyFile} aside: dacli then makes a new root key, whose fingerprint each clone accepts`,
          cmd('trust accept --fingerprint <F>'),
        ],
      },
    )
  }
  if (seed === null) {
    seed = randomBytes(32)
    mkdirNoLinks(path.dirname(keyFile))
    try {
      const fd = fs.openSync(keyFile, 'wx', 0o600)
      fs.writeSync(fd, `${seed.toString('base64url')}\n`)
      fs.closeSync(fd)
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e
      return rootSigner(sys, dacliDir, keyFile, attempt + 1) // another process made it first
    }
  }
  const signer = signerOf(seed)
  const pub = path.join(rootKeysDir(dacliDir), `${shortFingerprint(signer.publicKey)}.pub`)
  if (!fs.existsSync(pub)) {
    try {
      atomicWrite(sys, pub, `${signer.publicKey}\n`, { exclusive: true })
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e
    }
  }
  return signer
}
