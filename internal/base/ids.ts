// New identifiers: ULIDs, sortable by time and collision-free.

import { ulid } from 'ulid'
import { randomBytesOf } from './entropy.js'

/**
 * A new ULID (for the time `ms`, default now), its randomness (16 characters of 5 bits, one byte each) read at once
 * from the kernel's generator (entropy.ts). Left to itself, the ulid package looks for `globalThis.crypto` first,
 * and reading it loads Node's WebCrypto (~1 ms of a `task add`).
 */
export function newUlid(ms?: number): string {
  const bytes = randomBytesOf(16)
  let at = 0
  return ulid(ms, () => (bytes[at++ % bytes.length] as number) / 256)
}
