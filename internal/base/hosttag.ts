// A host as temp-file names carry it, so a writer tells its own dead temp files from another host's.

import { createHash } from 'node:crypto'
import type { Proc } from './system.js'

/**
 * A host as temp-file names carry it: 8 hex digits of a hash of the whole host name. (The first bytes of the
 * name would make `ip-10-0-0-1` and `ip-10-0-0-2` one host, so one could sweep the other's live temp file on
 * a shared volume.)
 */
export const hostTagOf = (host: string): string => createHash('sha256').update(host, 'utf8').digest('hex').slice(0, 8)

/** This host's tag (of the System passed in, so a test that plays another host gets that host's tag). */
export const hostTag = (sys: Proc): string => hostTagOf(sys.hostname)
