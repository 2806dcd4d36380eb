import { expect, test } from 'vitest'
import { randomBytesOf, randomHex } from './entropy.js'
import { newUlid } from './ids.js'

test('random bytes come in the length asked for, and differ from call to call', () => {
  const seen = new Set<string>()
  for (let i = 0; i < 200; i++) seen.add(randomHex(12))
  expect(seen.size).toBe(200)
  for (const hex of seen) expect(hex).toMatch(/^[0-9a-f]{24}$/)
  expect(randomBytesOf(64).length).toBe(64)
  // 64 bytes all zero (a read that filled nothing) would come up once in 2^512.
  expect(randomBytesOf(64).some((b) => b !== 0)).toBe(true)
})

test('new ids are ULIDs with a time part and 80 random bits, none repeated', () => {
  const ids = new Set(Array.from({ length: 500 }, () => newUlid(1_700_000_000_000)))
  expect(ids.size).toBe(500)
  for (const id of ids) expect(id).toMatch(/^01HF[0-9A-HJKMNP-TV-Z]{22}$/)
})
