// A cache trust for tests that write cache files by hand (store/cachekey.ts CacheTrust): a key of the test's own,
// and the stamps of files found whole kept in memory, so a test sees both ways a cache file is read.

import type { CacheTrust } from '../store/cachekey.js'

export function testTrust(key: Buffer | null = Buffer.alloc(32, 7)): CacheTrust & { marked: Map<string, string> } {
  const marked = new Map<string, string>()
  return {
    marked,
    key: () => key,
    verified: (name, stamp) => marked.get(name) === stamp,
    markVerified: (name, stamp) => void marked.set(name, stamp),
  }
}
