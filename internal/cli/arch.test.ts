// The architecture's rules (ARCHITECTURE.md), enforced over the source tree and the built bundle.

import * as fs from 'node:fs'
import * as path from 'node:path'
import { describe, expect, test } from 'vitest'
import { REPO_ROOT } from '../testkit/ws.js'

interface Src {
  file: string
  text: string
  /** Module specifiers of value imports (static and dynamic); `import type` excluded. */
  imports: string[]
}

function sources(dir: string): Src[] {
  const out: Src[] = []
  const walk = (d: string) => {
    for (const e of fs.readdirSync(d, { withFileTypes: true })) {
      const p = path.join(d, e.name)
      if (e.isDirectory()) walk(p)
      else if (e.name.endsWith('.ts') && !e.name.endsWith('.test.ts')) {
        const text = fs.readFileSync(p, 'utf8')
        const imports: string[] = []
        for (const m of text.matchAll(/^\s*(?:import|export)\s+(?!type\b)[^'"]*?from\s+['"]([^'"]+)['"]/gm))
          imports.push(m[1] as string)
        for (const m of text.matchAll(/^\s*import\s+['"]([^'"]+)['"]/gm)) imports.push(m[1] as string)
        for (const m of text.matchAll(/import\(\s*['"]([^'"]+)['"]\s*\)/g)) imports.push(m[1] as string)
        out.push({ file: path.relative(REPO_ROOT, p), text, imports })
      }
    }
  }
  walk(path.join(REPO_ROOT, dir))
  return out
}

const resolveTo = (from: string, spec: string) =>
  spec.startsWith('.') ? path.normalize(path.join(path.dirname(from), spec)) : spec

describe('architecture rules', () => {
  const internal = sources('internal')

  test('1. slices never import each other', () => {
    const bad: string[] = []
    for (const s of internal.filter((x) => x.file.startsWith('internal/features/'))) {
      const slice = s.file.split('/')[2]
      for (const i of s.imports) {
        const target = resolveTo(s.file, i)
        const m = /^internal\/features\/([^/]+)\//.exec(target)
        if (m && m[1] !== slice) bad.push(`${s.file} imports ${i}`)
      }
    }
    expect(bad).toEqual([])
  })

  test('2. the app layer (internal/cli, internal/mcp) imports neither the store nor the engines', () => {
    const bad: string[] = []
    for (const s of internal.filter((x) => /^internal\/(cli|mcp)\//.test(x.file))) {
      for (const i of s.imports) {
        if (/^internal\/(store|engines)\//.test(resolveTo(s.file, i))) bad.push(`${s.file} imports ${i}`)
      }
    }
    expect(bad).toEqual([])
  })

  test('3. engines are pure: no I/O modules, nothing outside engines', () => {
    const bad: string[] = []
    for (const s of internal.filter((x) => x.file.startsWith('internal/engines/'))) {
      for (const i of s.imports) {
        if (!i.startsWith('./') && !/^\.\.\/base\/(order|duration|distance)\.js$/.test(i))
          bad.push(`${s.file} imports ${i}`)
      }
      if (/\b(Date\.now|new Date\(\)|Math\.random|process\.)/.test(s.text))
        bad.push(`${s.file} reads a clock, randomness or process`)
    }
    expect(bad).toEqual([])
  })

  test('4. only cmd/ touches process (exit, argv, env, streams, cwd)', () => {
    const bad = internal
      .filter((s) => !s.file.startsWith('internal/testkit/'))
      .filter((s) => /process\.(exit|exitCode|argv|env|stdout|stderr|stdin|cwd|chdir|on)\b/.test(s.text))
      .map((s) => s.file)
    expect(bad).toEqual([])
    expect(internal.filter((s) => /\bconsole\./.test(s.text)).map((s) => s.file)).toEqual([])
  })

  test('5. heavy dependencies load lazily: never a static import outside their adapter', () => {
    const heavy = /^(isomorphic-git|@octokit\/|@modelcontextprotocol\/sdk|zod$)/
    const bad: string[] = []
    for (const s of internal) {
      const statics = [...s.text.matchAll(/^\s*import\s+(?!type\b)[^'"]*?from\s+['"]([^'"]+)['"]/gm)].map(
        (m) => m[1] as string,
      )
      for (const i of statics) {
        if (!heavy.test(i)) continue
        const allowed =
          (i === 'zod' &&
            (/\/json\.ts$/.test(s.file) || /schema\.ts$/.test(s.file) || s.file === 'internal/cli/documents.ts')) ||
          (i.startsWith('isomorphic-git') && s.file.startsWith('internal/gitx/')) ||
          (i.startsWith('@octokit/') && s.file.startsWith('internal/github/')) ||
          (i.startsWith('@modelcontextprotocol/') && s.file.startsWith('internal/mcp/'))
        if (!allowed) bad.push(`${s.file} statically imports ${i}`)
      }
    }
    expect(bad).toEqual([])
  })

  test('6. command files import their json.ts for types only (zod stays off the run path)', () => {
    const bad = internal
      .filter((s) => s.file.startsWith('internal/features/') && !s.file.endsWith('/json.ts'))
      .filter((s) => s.imports.some((i) => i.endsWith('/json.js') || i === './json.js'))
      .map((s) => s.file)
    expect(bad).toEqual([])
  })

  test('7. the bundled entry chunk statically reaches only node:*, the kernel, the parser and the table', () => {
    const metaFile = path.join(REPO_ROOT, 'build', 'meta.json')
    expect(fs.existsSync(metaFile), 'run `npm run build` first (npm test does)').toBe(true)
    const meta = JSON.parse(fs.readFileSync(metaFile, 'utf8')) as {
      outputs: Record<
        string,
        { inputs: Record<string, unknown>; imports: { path: string; kind: string; external?: boolean }[] }
      >
    }
    const inputs = new Set<string>()
    const externals = new Set<string>()
    const visit = (out: string, seen: Set<string>) => {
      if (seen.has(out)) return
      seen.add(out)
      const o = meta.outputs[out]
      if (!o) return
      for (const i of Object.keys(o.inputs)) inputs.add(i)
      for (const imp of o.imports) {
        if (imp.kind === 'dynamic-import') continue
        if (imp.external) externals.add(imp.path)
        else visit(imp.path, seen)
      }
    }
    visit('build/dacli.js', new Set())
    const allowed =
      /^(cmd\/(dacli|system)\.ts|internal\/clikit\/[a-z]+\.ts|internal\/cli\/(main|manifest\.gen)\.ts|internal\/runtime\/services\.ts|internal\/store\/errors\.ts|internal\/base\/(order|duration|system|distance)\.ts)$/
    expect([...inputs].filter((i) => !allowed.test(i))).toEqual([])
    expect([...externals].filter((e) => !e.startsWith('node:'))).toEqual([])
  })
})
