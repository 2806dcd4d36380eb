// Durations for leases and windows: `90s`, `45m`, `2h`, `1h30m`, `3d`, `1w`.

const UNIT_MS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000, w: 604_800_000 }

/** The longest duration accepted (100 years): anything longer would put a lease's end past what a date can hold. */
export const MAX_DURATION_MS = 36_500 * 86_400_000

/** `90s`, `45m`, `2h`, `1h30m`, `3d`, `1w`, `500ms`; a bare number means seconds. Null when malformed, not positive or over 100 years. */
export function parseDuration(text: string): number | null {
  if (/^\d+$/.test(text)) {
    const n = Number(text) * 1000
    return n > 0 && n <= MAX_DURATION_MS ? n : null
  }
  const re = /(\d+(?:\.\d+)?)(ms|s|m|h|d|w)/gy
  let total = 0
  let pos = 0
  for (let m = re.exec(text); m !== null; m = re.exec(text)) {
    total += Number(m[1]) * (UNIT_MS[m[2] as string] as number)
    pos = re.lastIndex
  }
  if (pos !== text.length || text.length === 0 || !(total > 0) || !(total <= MAX_DURATION_MS)) return null
  return Math.round(total)
}

export function formatDuration(ms: number): string {
  const parts: string[] = []
  let rest = Math.round(ms / 1000)
  for (const [unit, size] of [
    ['d', 86_400],
    ['h', 3_600],
    ['m', 60],
    ['s', 1],
  ] as const) {
    if (rest >= size) {
      parts.push(`${Math.floor(rest / size)}${unit}`)
      rest %= size
    }
  }
  return parts.length === 0 ? '0s' : parts.join('')
}

/** The longest delay a timer holds: Node fires a longer one at once (TimeoutOverflowWarning). */
export const MAX_TIMER_MS = 2 ** 31 - 1

/** A delay for `setTimeout`: a longer wait is cut to the longest a timer holds (about 24.8 days), never to 1 ms. */
export const timerDelay = (ms: number): number => Math.min(ms, MAX_TIMER_MS)
