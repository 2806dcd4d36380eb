// What counts as this machine: every form of a loopback address the resolver and URLs accept, and nothing else.

import { describe, expect, test } from 'vitest'
import { canonicalHost, isLoopback } from './loopback.js'

describe('loopback hosts', () => {
  test.each([
    ['127.0.0.1', '127.0.0.1'],
    ['127.1', '127.0.0.1'],
    ['0x7f.1', '127.0.0.1'],
    ['2130706433', '127.0.0.1'],
    ['127.9.8.7', '127.9.8.7'],
    ['::1', '::1'],
    ['[::1]', '::1'],
    ['0:0:0:0:0:0:0:1', '::1'],
    ['LocalHost', 'localhost'],
    ['api.localhost', 'api.localhost'],
  ])('%s is loopback (%s)', (host, canonical) => {
    expect(canonicalHost(host)).toBe(canonical)
    expect(isLoopback(host)).toBe(true)
  })

  test.each([
    ['10.0.0.1'],
    ['0'],
    ['0.0.0.0'],
    ['1.2.3'],
    ['::'],
    ['::ffff:127.0.0.1'],
    ['example.com'],
    ['127.example.com'],
  ])('%s is not', (host) => {
    expect(isLoopback(host)).toBe(false)
  })

  test('a host no resolver reads is none', () => {
    expect(canonicalHost('999.1.1.1')).toBeNull()
    expect(canonicalHost('bad host')).toBeNull()
    expect(canonicalHost('')).toBeNull()
  })
})
