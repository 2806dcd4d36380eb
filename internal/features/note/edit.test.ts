// note edit|rm, risk edit|rm, project edit (issue 34 item 5): the bytes on disk after each, what a person wrote by
// hand kept, refusals that leave the workspace exactly as it was, and the journal lines watch follows.

import * as fs from 'node:fs'
import * as path from 'node:path'
import { beforeEach, describe, expect, test } from 'vitest'
import { dacliJson } from '../../testkit/schemas.js'
import { type Workspace, workspace } from '../../testkit/ws.js'

let ws: Workspace
const j = (...args: Parameters<Workspace['dacli']>) => dacliJson(ws, ...args)
const journal = () =>
  fs
    .readdirSync(path.join(ws.root, '.dacli', 'journal'))
    .filter((n) => n.endsWith('.jsonl'))
    .flatMap((n) => fs.readFileSync(path.join(ws.root, '.dacli', 'journal', n), 'utf8').split('\n'))
    .filter((l) => l.startsWith('{') && l.includes('"kind"'))
    .map((l) => JSON.parse(l) as { kind: string; ref: string | null })

const DECISION = '.dacli/projects/p/notes/decisions/use-a-shim.md'
const RISK = '.dacli/projects/p/risks/batch-races.md'

beforeEach(async () => {
  ws = await workspace()
  await ws.ok('project', 'add', 'P', '--slug', 'p')
  await ws.ok('task', 'add', 'Do it', '--project', 'p', '--accept', 'x')
  await ws.ok('note', 'add', 'decision', 'Use a shim', '--project', 'p', '--rejected', 'rewrite', '--because', 'seam')
  await ws.ok('risk', 'add', 'Batch races', '--project', 'p', '--impact', 'high', '--likelihood', 'medium')
  await ws.ok('risk', 'edit', 'p/batch-races', '--indicator', 'dup rows', '--action', 'flag')
})

describe('note edit', () => {
  test('rewrites only what changed: a hand-written key, comment and paragraph keep their bytes', async () => {
    // A person added a key with a comment, and a paragraph under a section.
    const hand = ws
      .file(DECISION)
      .replace('note_kind: decision\n', 'note_kind: decision\nreviewed_by: carol # asked in standup\n')
      .replace('## Because\n\nseam\n', '## Because\n\nseam\n\n## Links\n\nhttps://example.test/adr-7\n')
    ws.write(DECISION, hand)
    const r = (
      await j('note', 'edit', 'p/use-a-shim', '--because', 'one seam, reversible', '--title', 'Use a write shim')
    ).expectExit(0).json
    expect(r).toMatchObject({ outcome: 'edited', title: 'Use a write shim', slug: 'use-a-shim' })
    expect(r.sections).toMatchObject({ rejected: 'rewrite', because: 'one seam, reversible' })
    const after = ws.file(DECISION)
    expect(after).toBe(
      hand.replace('# Use a shim\n', '# Use a write shim\n').replace('\nseam\n', '\none seam, reversible\n'),
    )
    // The same values again: nothing written.
    const again = (await j('note', 'edit', 'p/use-a-shim', '--because', 'one seam, reversible')).expectExit(0).json
    expect(again.outcome).toBe('unchanged')
    expect(ws.file(DECISION)).toBe(after)
    expect(journal().filter((e) => e.kind === 'note.changed')).toHaveLength(1)
  })

  test('refusals change nothing: wrong kind of section (2), a decision losing its rejected option (3), read-only (3)', async () => {
    const ro = await ws.agent('ro', 'reader')
    const before = ws.snapshot()
    expect((await j('note', 'edit', 'p/use-a-shim', '--goal', 'fast')).expectExit(2).error.message).toContain(
      'applies to metrics',
    )
    expect((await j('note', 'edit', 'p/use-a-shim', '--severity', 'major')).code).toBe(2)
    expect((await j('note', 'edit', 'p/use-a-shim')).expectExit(2).error.message).toContain('nothing to edit')
    expect((await j('note', 'edit', 'p/use-a-shim', '--rejected', ' ')).expectExit(3).error.details.policy).toBe(
      'decision-without-rejected',
    )
    expect(
      (await j('note', 'edit', 'p/use-a-shim', '--body', 'x', { as: ro.token })).expectExit(3).error.details.policy,
    ).toBe('grant')
    expect((await j('note', 'edit', 'p/nope', '--body', 'x')).code).toBe(4)
    expect(ws.snapshot()).toEqual(before)
  })

  test('--body replaces the text under the title; --about points at a task, --clear-about removes it', async () => {
    await ws.ok('note', 'add', 'finding', 'Odd rounding', '--project', 'p', '--body', 'first words')
    const file = '.dacli/projects/p/notes/findings/odd-rounding.md'
    const r = (
      await j('note', 'edit', 'p/odd-rounding', '--body', 'second words', '--about', 'p/1', '--severity', 'major')
    ).expectExit(0).json
    expect(r).toMatchObject({ body: 'second words', severity: 'major', about: { ref: 'p/001-do-it' } })
    expect(ws.file(file)).toMatch(/\nabout: t-[0-9A-Z]{26}\n/)
    expect(ws.file(file)).toContain('# Odd rounding\n\nsecond words\n')
    expect(ws.file(file)).not.toContain('first words')
    ;(await j('note', 'edit', 'p/odd-rounding', '--clear-about')).expectExit(0)
    expect(ws.file(file)).not.toContain('about:')
  })
})

describe('note rm', () => {
  test('a finding goes at once; a decision needs --force (3 without, nothing removed)', async () => {
    await ws.ok('note', 'add', 'finding', 'Odd rounding', '--project', 'p')
    const r = (await j('note', 'rm', 'p/odd-rounding')).expectExit(0).json
    expect(r).toMatchObject({ outcome: 'removed', kind: 'finding' })
    expect(fs.existsSync(path.join(ws.root, r.path))).toBe(false)
    const before = ws.snapshot()
    const refused = (await j('note', 'rm', 'p/use-a-shim')).expectExit(3)
    expect(refused.error.details.policy).toBe('confirm-removal')
    expect(refused.error.next_actions).toContain('dacli note rm p/use-a-shim --force')
    expect(ws.snapshot()).toEqual(before)
    ;(await j('note', 'rm', 'p/use-a-shim', '--force')).expectExit(0)
    expect(fs.existsSync(path.join(ws.root, DECISION))).toBe(false)
    expect((await j('note', 'show', 'p/use-a-shim')).code).toBe(4)
    expect(
      journal()
        .filter((e) => e.kind === 'note.removed')
        .map((e) => e.ref),
    ).toEqual(['p/odd-rounding', 'p/use-a-shim'])
  })
})

test('a note whose about a person wrote as a task reference is listed by note list --about', async () => {
  const id = (await j('task', 'show', 'p/1')).expectExit(0).json.id
  ws.write(
    '.dacli/projects/p/notes/findings/by-hand.md',
    '---\nid: n-01M94M84R9GKTZW1E9P0W9R0MF\nkind: note\nnote_kind: finding\nabout: p/1   # by hand\n---\n\n# By hand\n',
  )
  expect((await j('note', 'show', 'p/by-hand')).expectExit(0).json.about.id).toBe(id)
  const listed = (await j('note', 'list', '--about', 'p/001')).expectExit(0).json.notes
  expect(listed.map((n: { slug: string }) => n.slug)).toEqual(['by-hand'])
  // --about naming the same task again is the same value: unchanged, nothing rewritten.
  const before = ws.snapshot()
  expect((await j('note', 'edit', 'p/by-hand', '--about', id)).expectExit(0).json.outcome).toBe('unchanged')
  expect(ws.snapshot()).toEqual(before)
})

test('a section a note lacks is added in its kind’s order: a metric’s Goal before its Question', async () => {
  const rel = '.dacli/projects/p/notes/metrics/by-hand.md'
  const hand =
    '---\nid: n-01M94M84R9GKTZW1E9P0W9R0MG\nkind: note\nnote_kind: metric\n---\n\n# By hand\n\n## Question\n\nq\n\n## Metric\n\nm\n'
  ws.write(rel, hand)
  ;(await j('note', 'edit', 'p/by-hand', '--goal', 'g')).expectExit(0)
  expect(ws.file(rel)).toBe(hand.replace('## Question', '## Goal\n\ng\n\n## Question'))
})

describe('risk edit and rm', () => {
  test('impact and likelihood in the frontmatter, indicators and action in the body; the rank follows', async () => {
    const hand = `${ws.file(RISK)}\n## Notes\n\nseen twice in March\n`
    ws.write(RISK, hand)
    const r = (
      await j(
        'risk',
        'edit',
        'p/batch-races',
        '--likelihood',
        'low',
        '--indicator',
        'slow job',
        '--remove-indicator',
        'dup rows',
      )
    ).expectExit(0).json
    expect(r).toMatchObject({ outcome: 'edited', likelihood: 'low', rank: 3, indicators: ['slow job'], action: 'flag' })
    expect(ws.file(RISK)).toBe(
      hand.replace('likelihood: medium\n', 'likelihood: low\n').replace('- dup rows\n', '- slow job\n'),
    )
    const before = ws.snapshot()
    expect((await j('risk', 'edit', 'p/batch-races', '--remove-indicator', 'never there')).code).toBe(2)
    expect((await j('risk', 'edit', 'p/batch-races', '--impact', 'huge')).code).toBe(2)
    expect((await j('risk', 'edit', 'p/batch-races')).code).toBe(2)
    expect(ws.snapshot()).toEqual(before)
    const gone = (await j('risk', 'rm', 'p/batch-races')).expectExit(0).json
    expect(gone).toMatchObject({ outcome: 'removed', slug: 'batch-races' })
    expect(fs.existsSync(path.join(ws.root, RISK))).toBe(false)
    expect((await j('risk', 'list')).expectExit(0).json.risks).toEqual([])
    expect((await j('risk', 'rm', 'p/batch-races')).code).toBe(4)
    expect(journal().map((e) => e.kind)).toEqual(expect.arrayContaining(['risk.changed', 'risk.removed']))
  })

  test('an indicator removed or added leaves the other indicator lines as the person wrote them', async () => {
    const hand = ws.file(RISK).replace('- dup rows\n', '* dup rows\n* late batch   \n*   retries pile up\n')
    ws.write(RISK, hand)
    ;(await j('risk', 'edit', 'p/batch-races', '--remove-indicator', 'dup rows', '--indicator', 'slow job')).expectExit(
      0,
    )
    expect(ws.file(RISK)).toBe(
      hand.replace('* dup rows\n', '').replace('*   retries pile up\n', '*   retries pile up\n* slow job\n'),
    )
  })

  test('an unreadable risk or note is not a missing one: edit and rm exit 1 naming the file, nothing written', async () => {
    ws.write(RISK, ws.file(RISK).replace('# Batch races', '# Batch \u0007races'))
    ws.write(DECISION, ws.file(DECISION).replace('# Use a shim', '# Use \u0000a shim'))
    const before = ws.snapshot()
    for (const argv of [
      ['risk', 'edit', 'p/batch-races', '--action', 'x'],
      ['risk', 'rm', 'p/batch-races'],
      ['note', 'edit', 'p/use-a-shim', '--because', 'x'],
      ['note', 'rm', 'p/use-a-shim', '--force'],
    ]) {
      const r = (await j(...argv)).expectExit(1)
      expect(r.error.details.path).toMatch(/(batch-races|use-a-shim)\.md$/)
    }
    expect(ws.snapshot()).toEqual(before)
  })
})

describe('project edit', () => {
  test('title, status, stage and sections rewritten in place; a hand-written key and section kept', async () => {
    const file = '.dacli/projects/p/project.md'
    const hand = ws
      .file(file)
      .replace('stage: definition\n', 'stage: definition\nsponsor: dana # budget owner\n')
      .concat('\n## Vision\n\nNo month-end surprises.\n\n## Glossary\n\nshim: the write seam\n')
    ws.write(file, hand)
    const r = (
      await j('project', 'edit', 'p', '--title', 'Payments', '--stage', 'design', '--vision', 'Ledgers agree daily.')
    ).expectExit(0).json
    expect(r).toMatchObject({
      slug: 'p',
      title: 'Payments',
      stage: 'design',
      sections: { vision: 'Ledgers agree daily.' },
    })
    expect(ws.file(file)).toBe(
      hand
        .replace('# P\n', '# Payments\n')
        .replace('stage: definition\n', 'stage: design\n')
        .replace('No month-end surprises.', 'Ledgers agree daily.'),
    )
    const before = ws.snapshot()
    expect((await j('project', 'edit', 'p', '--status', 'sleeping')).code).toBe(2)
    expect((await j('project', 'edit', 'p')).code).toBe(2)
    expect((await j('project', 'edit', 'nope', '--stage', 'design')).code).toBe(4)
    ;(await j('project', 'edit', 'p', '--stage', 'design')).expectExit(0)
    expect(ws.snapshot()).toEqual(before)
  })
})

test('a note or risk whose file a hand edit broke is unreadable (1, naming the file) by its id too, not "no note matches" (4)', async () => {
  const note = (await ws.dacli('note', 'show', 'p/use-a-shim', '--json')).expectExit(0).json
  const risk = (await ws.dacli('risk', 'list', '--json')).expectExit(0).json.risks[0]
  ws.write(DECISION, ws.file(DECISION).replace(/^note_kind: decision$/m, 'note_kind: [decision'))
  ws.write(RISK, ws.file(RISK).replace(/^impact: high$/m, 'impact: extreme'))
  const before = ws.snapshot()
  for (const ref of [note.id, note.id.slice(2), `p/${note.id}`]) {
    const r = (await ws.dacli('note', 'show', ref, '--json')).expectExit(1)
    expect(r.error.message).toContain(`unreadable note file ${DECISION}`)
  }
  for (const args of [
    ['risk', 'edit', risk.id, '--action', 'x'],
    ['risk', 'rm', risk.id],
  ]) {
    const r = (await ws.dacli(...args, '--json')).expectExit(1)
    expect(r.error.message).toContain(`unreadable risk file ${RISK}`)
  }
  // An id no file carries is still not found.
  ;(await ws.dacli('note', 'show', 'n-01M97JZZZZZZZZZZZZZZZZZZZZ', '--json')).expectExit(4)
  expect(ws.snapshot()).toEqual(before)
})
