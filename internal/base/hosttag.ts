// A host as temp-file names carry it, so a writer tells its own dead temp files from another host's.

import { createHash } from 'node:crypto'
import type { Proc } from './system.js'

/**
 * A host as temp-file names carry it: 8 hex digits of a hash of the whole host name (FNV-1a, 32 bits, over its
 * UTF-8 bytes). The first bytes of the name would make `ip-10-0-0-1` and `ip-10-0-0-2` one host, so one could sweep
 * the other's live temp file on a shared volume. Not a cryptographic hash: the tag only tells hosts apart, and
 * node:crypto costs a writing command 5–10 ms to load (entropy.ts).
 */
export function hostTagOf(host: string): string {
  let h = 0x811c9dc5
  for (const byte of Buffer.from(host, 'utf8')) h = Math.imul(h ^ byte, 0x01000193) >>> 0
  return h.toString(16).padStart(8, '0')
}

/** This host's tag (of the System passed in, so a test that plays another host gets that host's tag). */
export const hostTag = (sys: Proc): string => hostTagOf(sys.hostname)

/**
 * Whether a temp file's tag is this host's: the tag above, or the one releases before 2026-12-06 wrote (the first
 * 8 hex digits of the name's SHA-256), so a temp file left by a crash before an upgrade is still swept here. The
 * old tag is worked out only for a tag that is not the new one.
 */
export const isOwnTag = (sys: Proc, tag: string): boolean =>
  tag === hostTag(sys) || tag === createHash('sha256').update(sys.hostname, 'utf8').digest('hex').slice(0, 8)
