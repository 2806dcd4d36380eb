// The release version, injected at build time by esbuild (and by vitest's config)
// from package.json, so the bin never reads package.json at run time.

declare const __DACLI_VERSION__: string

export const VERSION: string = __DACLI_VERSION__
export const BINARY_NAME = 'dacli'
