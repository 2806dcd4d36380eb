// A small file made once by whichever process gets there first (a clone's id, its cache key): written whole to a temp
// file beside it, then linked into place. link() fails when the name is taken, so of several processes making it at
// once exactly one wins, none sees a half-written file, and each then reads the winner's.

import * as fs from 'node:fs'
import { randomHex } from './entropy.js'

/** Make `file` hold `text` (with `mode`) unless it exists. Throws when the folder cannot be written. */
export function createOnce(file: string, text: string, mode: number): void {
  const tmp = `${file}.${randomHex(6)}.tmp`
  try {
    fs.writeFileSync(tmp, text, { flag: 'wx', mode })
    try {
      fs.linkSync(tmp, file)
    } catch {
      // another process made it first: theirs stands
    }
  } finally {
    fs.rmSync(tmp, { force: true })
  }
}
