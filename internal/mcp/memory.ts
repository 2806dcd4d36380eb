// A long-running server over a large workspace allocates tens of megabytes per
// heavy call (every task summary of 10,000 tasks, the document, its JSON twice)
// and V8 keeps the grown heap resident. After a call that left the heap large,
// a full collection — run after the answer is on its way, not before — lets V8
// hand the pages back (quality.md: a warm server stays under 150 MB at 10k tasks).

import { setFlagsFromString } from 'node:v8'
import { runInNewContext } from 'node:vm'
import { system } from '../base/system.js'

/** Heap in use above which a finished call triggers a collection. */
const THRESHOLD_BYTES = 32 * 1024 * 1024

let collect: (() => void) | null = null

/** Collect garbage soon if the heap is large; never delays the current answer. */
export function settleMemory(): void {
  setImmediate(() => {
    if (system().heapUsed() < THRESHOLD_BYTES) return
    if (collect === null) {
      // `gc` is only exposed with --expose-gc; the flag can be set at run time, and a fresh context then has it.
      setFlagsFromString('--expose-gc')
      collect = runInNewContext('gc') as () => void
    }
    collect()
  })
}
