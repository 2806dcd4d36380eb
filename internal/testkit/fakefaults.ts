// Faults the fake GitHub injects: armed ones (a status, a lost answer, a hang,
// a body that is not GitHub's API, on the nth matching call) and chaos (a
// seeded random fault on a share of all calls, as GitHub does during an
// incident). A fault that "applies first" performs the write before the answer
// is lost, so a client sees an error although the work happened.

export interface Fault {
  method?: string
  /** Matched against the path (no query). */
  path?: RegExp
  /** Fail the nth matching call (1-based; default 1) … */
  nth?: number
  /** … and this many consecutive matching calls from there (default 1; Infinity for an outage). */
  times?: number
  /** Answer status (default 502). */
  status?: number
  headers?: Record<string, string>
  message?: string
  /** Answer with these bytes instead of GitHub's `{message}` (a proxy's HTML page, garbage, wrong-shaped JSON). */
  body?: string
  /** The content-type of `body` (default application/json). */
  contentType?: string
  /** Perform the write first, then answer with the fault (the work happened, the answer was lost). */
  afterApply?: boolean
  /** Hold the answer this long (a hung server; trips the client's timeout). A write that applies first is applied before the wait. */
  delayMs?: number
}

export interface ArmedFault extends Fault {
  seen: number
}

export type ChaosKind = 500 | 502 | 'timeout' | 429

export interface Chaos {
  /** Share of calls that fail (0–1). */
  rate: number
  /** Seed of the generator: the same seed, the same faults for the same sequence of calls. */
  seed: number
  kinds?: ChaosKind[]
  /** How long a timeout holds the answer (default 2,000 ms: set the client's timeout below it). */
  holdMs?: number
  /** The retry-after (seconds) a 429 asks for (default 0). */
  retryAfterS?: number
  /** Only calls whose path matches (default: every call but /rate_limit). */
  path?: RegExp
}

/** mulberry32: a small seeded generator, so a chaos run can be replayed. */
export function seeded(seed: number): () => number {
  let a = seed >>> 0
  return () => {
    a = (a + 0x6d2b79f5) >>> 0
    let t = a
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
}

/** The armed fault for this call, if any (every matching fault counts the call). */
export function armedFor(faults: ArmedFault[], method: string, path: string): ArmedFault | null {
  let hit: ArmedFault | null = null
  for (const f of faults) {
    if (f.method !== undefined && f.method !== method) continue
    if (f.path !== undefined && !f.path.test(path)) continue
    f.seen++
    const first = f.nth ?? 1
    if (hit === null && f.seen >= first && f.seen < first + (f.times ?? 1)) hit = f
  }
  return hit
}

/** A chaos fault for this call, or null. Writes that fail with a 5xx or a timeout apply first half the time. */
export function chaosFault(c: Chaos, random: () => number, method: string, path: string): Fault | null {
  if (!(c.path ?? /^(?!\/rate_limit$)/).test(path)) return null
  if (random() >= c.rate) return null
  const kinds = c.kinds ?? [500, 502, 'timeout', 429]
  const kind = kinds[Math.floor(random() * kinds.length)] as ChaosKind
  const write = method !== 'GET' && method !== 'HEAD'
  const afterApply = write && kind !== 429 && random() < 0.5
  if (kind === 'timeout') return { delayMs: c.holdMs ?? 2_000, status: 504, afterApply }
  if (kind === 429) {
    return {
      status: 429,
      headers: { 'retry-after': String(c.retryAfterS ?? 0) },
      message: 'You have exceeded a secondary rate limit (injected)',
    }
  }
  return { status: kind, afterApply }
}
