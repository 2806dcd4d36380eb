// Random bytes for temp-file names, lock tokens and new ids, read from the kernel's generator (/dev/urandom)
// without loading node:crypto: a command that writes one task file needs a dozen random bytes, and node:crypto
// brings 39 of Node's modules with it (the streams library among them), 5–10 ms of a `task check` measured.
// Where /dev/urandom cannot be read as a character device (Windows, a bare chroot), node:crypto gives them.

import { randomBytes } from 'node:crypto'
import * as fs from 'node:fs'

/** `n` random bytes from the kernel's generator (node:crypto's when it cannot be read). */
export function randomBytesOf(n: number): Buffer {
  const out = Buffer.allocUnsafe(n)
  let fd: number | null = null
  try {
    fd = fs.openSync('/dev/urandom', fs.constants.O_RDONLY | (fs.constants.O_NOFOLLOW ?? 0))
    if (fs.fstatSync(fd).isCharacterDevice() && fs.readSync(fd, out, 0, n, null) === n) return out
  } catch {
    // no /dev/urandom here: node:crypto below
  } finally {
    if (fd !== null) fs.closeSync(fd)
  }
  return randomBytes(n)
}

/** `n` random bytes as 2n hex digits. */
export const randomHex = (n: number): string => randomBytesOf(n).toString('hex')
