import { describe, expect, it } from 'vitest'
import { count } from '../base/text.js'
import { makeNotes } from './io.js'
import { fitColumns, makeOut } from './out.js'
import { colorEnabled, oneDecimal, shortRef, visible } from './text.js'
import { cut, displayWidth } from './width.js'

const sink = () => {
  let text = ''
  return {
    write: (t: string) => {
      text += t
    },
    get text() {
      return text
    },
  }
}

describe('text for people', () => {
  it('control characters become visible escapes; newlines and tabs stay unless inline', () => {
    expect(visible('a\u001b[2Jb')).toBe('a\\x1b[2Jb')
    expect(visible('\u001b]0;pwned\u0007')).toBe('\\x1b]0;pwned\\x07')
    expect(visible('x\u009by\u007f')).toBe('x\\x9by\\x7f')
    expect(visible('evil\u202etxt.exe')).toBe('evil\\u202etxt.exe')
    expect(visible('one\ntwo\tthree\r')).toBe('one\ntwo\tthree\\r')
    expect(visible('one\ntwo\tthree', true)).toBe('one\\ntwo\\tthree')
    expect(visible('naïve 日本 ✓')).toBe('naïve 日本 ✓')
  })

  it('display width counts wide characters as two and combining marks as none', () => {
    expect(displayWidth('abc')).toBe(3)
    expect(displayWidth('日本語')).toBe(6)
    expect(displayWidth('e\u0301')).toBe(1)
    expect(displayWidth('\u001b[31mred\u001b[39m')).toBe(3)
  })

  it('cut ends in … and never exceeds the width, even through wide characters', () => {
    expect(cut('Audit every write path', 10)).toBe('Audit eve…')
    expect(displayWidth(cut('Audit every write path', 10))).toBe(10)
    expect(cut('short', 10)).toBe('short')
    const wide = cut('日本語のタイトル', 7)
    expect(displayWidth(wide)).toBeLessThanOrEqual(7)
    expect(wide.endsWith('…')).toBe(true)
  })

  it('plurals and short refs', () => {
    expect(count(1, 'criterion', 'criteria')).toBe('1 criterion')
    expect(count(2, 'criterion', 'criteria')).toBe('2 criteria')
    expect(count(0, 'file')).toBe('0 files')
    expect(count(1, 'file')).toBe('1 file')
    expect(shortRef('ledger/012-audit-the-writes')).toBe('ledger/12')
    expect(shortRef('ledger/100-x')).toBe('ledger/100')
    expect(shortRef('t-01ABC')).toBe('t-01ABC')
    expect(oneDecimal(2.1667)).toBe('2.2')
    expect(oneDecimal(6)).toBe('6.0')
    expect(oneDecimal(null)).toBe('-')
  })

  it('columns fit the width: the shrink column gives way first, then the widest', () => {
    expect(fitColumns([10, 6, 40], 80, 2, 2)).toEqual([10, 6, 40])
    expect(fitColumns([10, 6, 40], 40, 2, 2)).toEqual([10, 6, 20])
    const tight = fitColumns([30, 6, 40], 30, 2, 2)
    expect(tight.reduce((a, b) => a + b, 0) + 4).toBeLessThanOrEqual(30)
    expect(tight[2]).toBe(10)
  })
})

describe('Out: the one gate to the terminal', () => {
  it('a table on a terminal never prints a line wider than the width; piped it is never cut', () => {
    const rows = [['ledger/1', 'open', 'A title that is far too long to fit in a narrow terminal window at all']]
    const tty = sink()
    makeOut(tty, { color: false, width: 40 }).table(['REF', 'STATUS', 'TITLE'], rows)
    for (const l of tty.text.trimEnd().split('\n')) expect(displayWidth(l)).toBeLessThanOrEqual(40)
    expect(tty.text).toContain('…')
    const piped = sink()
    makeOut(piped, { color: false, width: null }).table(['REF', 'STATUS', 'TITLE'], rows)
    expect(piped.text).toContain('at all')
    expect(piped.text.split('\n')[0]).toMatch(/^REF {7}STATUS {2}TITLE$/)
  })

  it('with colour, only our own styles reach the terminal; escapes from data and forged marks are shown', () => {
    const w = sink()
    const out = makeOut(w, { color: true, width: null })
    out.line(`${out.style('red', 'x')} title\u001b[2J \uE000aaaaaa0o\uE001`)
    expect(w.text).toContain('\u001b[31mx\u001b[39m')
    expect(w.text).toContain('title\\x1b[2J')
    expect(w.text).toContain('\\ue000aaaaaa0o\\ue001')
    expect(w.text.match(/\u001b/g)?.length).toBe(2)
  })

  it('cells show newlines from data as \\n so a title cannot forge a row', () => {
    const w = sink()
    makeOut(w, { color: false }).table(['A', 'B'], [['x', 'one\nfake row']])
    expect(w.text).toBe('A  B\nx  one\\nfake row\n')
  })
})

describe('progress on stderr', () => {
  it('plain lines at every tenth when not a terminal', () => {
    const w = sink()
    const p = makeNotes(w, { quiet: false, color: false }).progress('pull', 20)
    for (let i = 0; i < 20; i++) p.tick()
    p.end('pull: 20 issues')
    const lines = w.text.trimEnd().split('\n')
    expect(lines[0]).toBe('pull: 2/20 (10%)')
    expect(lines).toContain('pull: 20/20 (100%)')
    expect(lines.at(-1)).toBe('pull: 20 issues')
    expect(lines.length).toBe(11)
  })

  it('a bar redrawn in place on a terminal, throttled, cleared at the end; warnings keep it', () => {
    const w = sink()
    let now = 0
    const notes = makeNotes(w, { quiet: false, color: false, tty: true, width: 60, clock: () => now })
    const p = notes.progress('push', 4)
    p.update(1)
    p.update(2) // within 100 ms: not drawn
    now += 200
    p.update(2, 'ledger/2')
    notes.warn('slow answer')
    p.end()
    expect(w.text).toContain('\rpush █████░░░░░░░░░░░░░░░ 1/4\u001b[K')
    expect(w.text).not.toContain('1/4\u001b[K\rpush ██████████░░░░░░░░░░ 2/4\u001b[K\rpush')
    expect(w.text).toContain('2/4  ledger/2')
    expect(w.text).toContain('\r\u001b[Kwarning: slow answer\n\rpush')
    expect(w.text.endsWith('\r\u001b[K')).toBe(true)
  })

  it('no plain lines for a run of fewer than ten items (a one-item prune is not a progress report)', () => {
    const w = sink()
    const p = makeNotes(w, { quiet: false, color: false }).progress('prune', 3)
    for (let i = 0; i < 3; i++) p.tick('x')
    p.end()
    expect(w.text).toBe('')
    const q = makeNotes(w, { quiet: false, color: false }).progress('prune', 10)
    for (let i = 0; i < 10; i++) q.tick()
    expect(w.text).toContain('prune: 10/10 (100%)')
  })

  it('nothing under --json or --quiet', () => {
    const w = sink()
    const p = makeNotes(w, { quiet: false, json: true, color: false }).progress('x', 2)
    p.tick()
    p.say('hello')
    p.end('done')
    const q = makeNotes(w, { quiet: true, color: false }).progress('x', 2)
    q.tick()
    q.end('done')
    expect(w.text).toBe('')
  })
})

describe('colorEnabled', () => {
  it('a terminal has colour; NO_COLOR and TERM=dumb take it away; FORCE_COLOR forces it on, 0 and false off', () => {
    expect(colorEnabled(true, {})).toBe(true)
    expect(colorEnabled(false, {})).toBe(false)
    expect(colorEnabled(true, { TERM: 'dumb' })).toBe(false)
    expect(colorEnabled(true, { NO_COLOR: '1' })).toBe(false)
    expect(colorEnabled(true, { NO_COLOR: '1', FORCE_COLOR: '1' })).toBe(false)
    for (const on of ['1', '2', '3', 'true', '']) expect(colorEnabled(false, { FORCE_COLOR: on })).toBe(true)
    for (const off of ['0', 'false']) expect(colorEnabled(true, { FORCE_COLOR: off })).toBe(false)
  })
})
