// The system's Chromium, found and started the same way by the board's browser
// tests (internal/board/browser.test.ts) and the board benchmark (bench/board.mjs):
// playwright-core drives it; no browser is downloaded.

import { existsSync } from 'node:fs'

/** Where a Chromium is looked for when DACLI_CHROMIUM does not name one. */
export const CHROMIUM_PATHS = ['/usr/bin/chromium', '/usr/bin/chromium-browser', '/usr/bin/google-chrome']

/** The flags every run starts it with: no sandbox (containers), no GPU, and none of its own network traffic. */
export const CHROMIUM_ARGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
]

/** DACLI_CHROMIUM when set and present, else the first of CHROMIUM_PATHS that exists; null when none does. */
export function chromiumExecutable(env = process.env) {
  const given = env.DACLI_CHROMIUM
  return [given, ...CHROMIUM_PATHS].find((p) => typeof p === 'string' && p !== '' && existsSync(p)) ?? null
}
