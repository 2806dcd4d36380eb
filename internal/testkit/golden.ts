// Golden files: output a test compares byte for byte with a checked-in file
// (testdata/…, schemas/). With UPDATE_GOLDEN=1 the run writes them instead and
// deletes the stale ones; then review the diff.

import * as fs from 'node:fs'
import * as path from 'node:path'
import { expect } from 'vitest'
import { REPO_ROOT } from './ws.js'

/** UPDATE_GOLDEN=1: this run rewrites the golden files rather than failing on a difference. */
export const updatingGoldens = process.env.UPDATE_GOLDEN === '1'

const shown = (file: string) => path.relative(REPO_ROOT, file)

/** `text` must be the golden file's bytes (written first under UPDATE_GOLDEN=1). */
export function expectGolden(file: string, text: string): void {
  if (updatingGoldens) {
    fs.mkdirSync(path.dirname(file), { recursive: true })
    fs.writeFileSync(file, text)
  }
  expect(fs.existsSync(file), `${shown(file)} is missing: run UPDATE_GOLDEN=1 npm test and review`).toBe(true)
  expect(text, `${shown(file)} differs: run UPDATE_GOLDEN=1 npm test and review`).toBe(fs.readFileSync(file, 'utf8'))
}

/** `dir` holds no file but the `expected` names (the others are deleted under UPDATE_GOLDEN=1). */
export function expectOnlyGoldens(dir: string, expected: ReadonlySet<string>): void {
  const stale = () => (fs.existsSync(dir) ? fs.readdirSync(dir) : []).filter((f) => !expected.has(f))
  if (updatingGoldens) for (const f of stale()) fs.rmSync(path.join(dir, f), { recursive: true, force: true })
  expect(stale(), `stale files in ${shown(dir)}: run UPDATE_GOLDEN=1 npm test and review`).toEqual([])
}
