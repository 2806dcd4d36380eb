// SECURITY.md is a list of promises, each pinned by a test (issue 28): every row of its tables names a test file
// that exists, and a row that names a test by its title (`file › title`) names one that the file declares.

import * as fs from 'node:fs'
import * as path from 'node:path'
import { describe, expect, test } from 'vitest'
import { REPO_ROOT } from '../testkit/ws.js'

const doc = fs.readFileSync(path.join(REPO_ROOT, 'SECURITY.md'), 'utf8')

/** The rows of every `| cannot | pinned by |` table: [promise, pinned-by cell]. */
function rows(): [string, string][] {
  const out: [string, string][] = []
  let inTable = false
  for (const line of doc.split('\n')) {
    if (/^\|\s*cannot\s*\|\s*pinned by\s*\|$/.test(line)) {
      inTable = true
      continue
    }
    if (!line.startsWith('|')) {
      inTable = false
      continue
    }
    if (!inTable || /^\|\s*-+\s*\|/.test(line)) continue
    const cells = line.split(/(?<!\\)\|/).slice(1, -1)
    out.push([cells.slice(0, -1).join('|').trim(), (cells.at(-1) ?? '').trim()])
  }
  return out
}

/**
 * Every `file › title` (title optional) of a pinned-by cell: a cell may name several, separated by `;` or words
 * (`…; resources too: \`file\` › title`: a title ends at `;`); a title may be a prefix ending in `…`, and a remark in parentheses
 * after it is not part of it.
 */
function pins(cell: string): { file: string; title: string | null }[] {
  const out: { file: string; title: string | null }[] = []
  for (const m of cell.matchAll(/`([^`]+\.test\.ts)`(?:\s*›\s*([^;`]+))?/g)) {
    const title = m[2]
      ?.replace(/\s*\(.*$/, '')
      .replace(/…$/, '')
      .trim()
    out.push({ file: m[1] as string, title: title === undefined || title === '' ? null : title })
  }
  return out
}

/** A title as the file writes it (the doc uses typographic apostrophes and may shorten it to a prefix). */
const declares = (source: string, title: string) => {
  const plain = (s: string) => s.replace(/[’‘]/g, "'").replace(/\\'/g, "'")
  return plain(source).includes(plain(title))
}

describe('SECURITY.md: every row names its test', () => {
  const all = rows()

  test('the tables are found', () => {
    expect(all.length).toBeGreaterThan(20)
  })

  test.each(all.map(([promise, cell]) => [promise.slice(0, 80), cell]))('%s', (_promise, cell) => {
    const named = pins(cell)
    expect(named.length, `a pinned-by cell that names no test file: ${cell}`).toBeGreaterThan(0)
    for (const p of named) {
      const file = path.join(REPO_ROOT, p.file)
      expect(fs.existsSync(file), `${p.file} does not exist`).toBe(true)
      if (p.title !== null) {
        expect(declares(fs.readFileSync(file, 'utf8'), p.title), `${p.file} declares no "${p.title}"`).toBe(true)
      }
    }
  })
})
