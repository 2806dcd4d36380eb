import { spawnSync } from 'node:child_process'
import { describe, expect, it } from 'vitest'
import { detached } from './strings.js'

/** Heap in use (MB) after keeping a 40-character cut of each of 40 one-megabyte texts, cut by `cut`. */
function keptMB(cut: string): number {
  const script = `
    const detached = ${detached.toString()}
    const kept = []
    for (let i = 0; i < 40; i++) {
      const text = String(i).padStart(4, '0') + 'x'.repeat(1 << 20)
      kept.push(${cut})
    }
    globalThis.gc()
    process.stdout.write(String(process.memoryUsage().heapUsed / 1048576) + ' ' + kept.length)
  `
  const r = spawnSync(process.execPath, ['--expose-gc', '-e', script], { encoding: 'utf8' })
  expect(r.status, r.stderr).toBe(0)
  return Number(r.stdout.split(' ')[0])
}

describe('detached', () => {
  it('is the same text, for every length around the point where substrings become views', () => {
    const text = `${'x'.repeat(300)}abcdefghijklmnopqrstuvwxyz${'y'.repeat(300)}`
    for (let n = 0; n <= 26; n++) {
      const cut = text.slice(300, 300 + n)
      expect(detached(cut)).toBe(cut)
    }
    expect(detached('é✓ unicode and more than thirteen')).toBe('é✓ unicode and more than thirteen')
  })

  it('keeps only its own characters alive, where a plain substring keeps the whole text it was cut from', () => {
    // The control: plain substrings keep all forty texts (40 MB); detached ones keep none of them.
    expect(keptMB('text.slice(0, 40)')).toBeGreaterThan(35)
    expect(keptMB('detached(text.slice(0, 40))')).toBeLessThan(15)
  })
})
