// A large answer is written in pages, its document serialized once (stdio.ts): the line on the wire must
// still be one JSON-RPC message whose structured content is exactly the document its text carries — also
// when a page boundary falls inside an escape or between the halves of a surrogate pair.

import * as fs from 'node:fs'
import * as path from 'node:path'
import { expect, test } from 'vitest'
import { INITIALIZE, serveInProcess, toolCall } from '../testkit/mcpserve.js'
import { workspace } from '../testkit/ws.js'
import { pagesOf } from './stdio.js'

test('a large list_tasks answer arrives as one message whose structured content is its text, parsed', async () => {
  const ws = await workspace()
  ;(await ws.dacli('project', 'add', 'Big', '--slug', 'big')).expectExit(0)
  const open = path.join(ws.root, '.dacli', 'projects', 'big', 'tasks', 'open')
  fs.mkdirSync(open, { recursive: true })
  // Titles with quotes, backslashes, newlines' escapes and astral characters, so pages cut everywhere.
  for (let i = 1; i <= 400; i++) {
    const seq = String(i).padStart(3, '0')
    fs.writeFileSync(
      path.join(open, `${seq}-t${i}.md`),
      `---\nid: t-01J${String(i).padStart(23, '0')}\nkind: task\nversion: 1\n---\n\n# Task ${i} "quoted" \\ back 😀 ${'é'.repeat(i % 7)} 𝄞\n`,
    )
  }
  const s = serveInProcess(ws.root, ['--quiet'])
  s.send(INITIALIZE)
  await s.response(0)
  s.send(toolCall(1, 'list_tasks', { schema_version: 1, limit: 1000 }))
  const answer = await s.response(1)
  const text = answer.result.content[0].text as string
  expect(text.length).toBeGreaterThan(3 * 16 * 1024) // several pages
  expect(answer.result.structuredContent).toEqual(JSON.parse(text))
  expect(answer.result.structuredContent.tasks).toHaveLength(400)
  expect(answer.result.structuredContent.tasks[0].title).toBe('Task 1 "quoted" \\ back 😀 é 𝄞')
  // One line per message: the document's own JSON never carries a raw newline.
  const line = s.lines().find((l) => l.startsWith('{"jsonrpc":"2.0","id":1,'))
  expect(line).toBeDefined()
  expect(JSON.parse(line as string).result).toEqual(answer.result)
  await s.end()
})

test('a run of astral characters across pages and writes: the structured content is not mangled', async () => {
  // Each title is a long run of surrogate pairs; the two differ in length by one unit, so in one of them
  // the pairs sit at odd offsets of the document and a page (and a write) boundary falls between halves.
  const ws = await workspace()
  ;(await ws.dacli('project', 'add', 'Wide', '--slug', 'wide')).expectExit(0)
  const open = path.join(ws.root, '.dacli', 'projects', 'wide', 'tasks', 'open')
  fs.mkdirSync(open, { recursive: true })
  const titles = ['ab', 'abc'].map((lead) => `${lead}${'😀'.repeat(50_000)}`)
  titles.forEach((title, i) => {
    fs.writeFileSync(
      path.join(open, `00${i + 1}-w${i + 1}.md`),
      `---\nid: t-01J${String(i + 1).padStart(23, '0')}\nkind: task\nversion: 1\n---\n\n# ${title}\n`,
    )
  })
  const s = serveInProcess(ws.root, ['--quiet'])
  s.send(INITIALIZE)
  await s.response(0)
  s.send(toolCall(1, 'list_tasks', { schema_version: 1, limit: 10 }))
  const answer = await s.response(1)
  const text = answer.result.content[0].text as string
  // The runs of pairs start at odd offsets of the document, so the even page boundaries fall between halves.
  expect(titles.map((t) => text.indexOf(t) % 2)).toEqual([1, 1])
  expect(text).not.toContain('\uFFFD')
  expect(JSON.stringify(answer.result.structuredContent)).not.toContain('\uFFFD')
  expect(answer.result.structuredContent.tasks.map((t: { title: string }) => t.title)).toEqual(titles)
  expect(answer.result.structuredContent).toEqual(JSON.parse(text))
  await s.end()
})

test('pagesOf never ends a page between the halves of a surrogate pair, and the pages join to the text', () => {
  for (const lead of ['', 'x', 'xy']) {
    const text = `${lead}${'😀'.repeat(40)}é`
    const pages = [...pagesOf(text, 7)]
    expect(pages.join('')).toBe(text)
    for (const page of pages) {
      expect(page.length).toBeGreaterThan(0)
      expect(Buffer.from(page, 'utf8').toString('utf8')).toBe(page) // no lone half to become U+FFFD
    }
  }
  expect([...pagesOf('', 7)]).toEqual([])
})
