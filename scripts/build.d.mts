// Types for the parts of build.mjs the tests call (internal/testkit/arch.ts: command placement).

export interface ManifestEntry {
  /** The command's declaration as the manifest carries it. */
  decl: { path: string } & Record<string, unknown>
  /** The module the manifest's loader imports, relative to internal/cli/ (`../features/task/log.js`). */
  spec: string
  /** The export holding the command. */
  name: string
  /** The command's file, relative to the tree's root (`internal/features/task/log.ts`). */
  file: string
}

export function generateManifest(opts?: {
  write?: boolean
  at?: string
  scratch?: string
  logLevel?: 'silent' | 'error' | 'warning'
}): Promise<{ text: string; count: number; entries: ManifestEntry[] }>
