// New identifiers: ULIDs, sortable by time and collision-free.

import { randomBytes } from 'node:crypto'
import { ulid } from 'ulid'

/**
 * A new ULID (for the time `ms`, default now), its randomness taken from node:crypto. Left to itself, the ulid
 * package looks for `globalThis.crypto` first, and reading it loads Node's WebCrypto (~1 ms of a `task add`).
 */
export const newUlid = (ms?: number): string => ulid(ms, () => randomBytes(1).readUInt8() / 256)
