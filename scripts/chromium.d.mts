// Types for scripts/chromium.mjs (imported by internal/board/browser.test.ts).

export const CHROMIUM_PATHS: readonly string[]
export const CHROMIUM_ARGS: readonly string[]
export function chromiumExecutable(env?: Readonly<Record<string, string | undefined>>): string | null
