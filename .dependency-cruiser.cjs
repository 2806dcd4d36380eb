// The house's import rules (ARCHITECTURE.md, "Rules"), checked by dependency-cruiser over every non-test module
// of internal/ and cmd/. internal/cli/arch.test.ts runs it on the tree and on copies with a planted violation
// of each rule, so a rule that cannot fail fails the suite.
//
// Type-only imports count: the TypeScript 7 compiler has no JavaScript API for dependency-cruiser to tell them
// apart (it parses with swc), and a type a lower room borrows from a higher one is a dependency all the same.

/** The rooms, lowest first. A module may import its own room and any room below it, never one above. */
const LAYERS = [
  ['base', '^internal/base/'],
  ['format', '^internal/format/'],
  ['adapters', '^internal/adapters/'],
  ['store', '^internal/store/'],
  ['domain', '^internal/domain/'],
  ['kernel', '^internal/clikit/'],
  ['features', '^internal/features/'],
  ['app', '^internal/(cli|mcp|board)/'],
  ['bin', '^cmd/'],
]

const above = (i) =>
  LAYERS.slice(i + 1)
    .map(([, re]) => re)
    .join('|')

const layerRules = LAYERS.slice(0, -1).map(([name, re], i) => ({
  name: `layers: ${name}`,
  comment: `${name} imports only its own room and the rooms below it (ARCHITECTURE.md rule 1)`,
  severity: 'error',
  from: { path: re },
  to: { path: above(i) },
}))

module.exports = {
  forbidden: [
    ...layerRules,
    {
      name: 'adapters know no dacli',
      comment: 'an adapter knows git or GitHub, never another adapter, the domain or the formats (rule 1)',
      severity: 'error',
      from: { path: '^internal/adapters/(git|github)/' },
      to: { path: ['^internal/format/', '^internal/adapters/'], pathNot: '^internal/adapters/$1/' },
    },
    {
      name: 'slices',
      comment: 'a slice never imports another slice; what two share lives in domain or features/shared (rule 2)',
      severity: 'error',
      from: { path: '^internal/features/([^/]+)/' },
      to: { path: '^internal/features/', pathNot: ['^internal/features/$1/', '^internal/features/shared/'] },
    },
    {
      name: 'app layer',
      comment:
        'cli, mcp and board import the table and the kernel: the slices’ index.ts/json.ts, clikit, base and each other (rule 3); the composition root that wires the store, the adapters and the servers is cmd/services.ts',
      severity: 'error',
      from: { path: '^internal/(cli|mcp|board)/', pathNot: '^internal/cli/manifest\\.gen\\.ts$' },
      to: {
        path: '^internal/',
        pathNot: ['^internal/(cli|mcp|board|clikit|base)/', '^internal/features/[^/]+/(index|json)\\.ts$'],
      },
    },
    {
      name: 'app layer: the manifest',
      comment: 'the generated table imports the kernel and loads each command module with import() (rule 3)',
      severity: 'error',
      from: { path: '^internal/cli/manifest\\.gen\\.ts$' },
      to: { path: '^internal/', pathNot: ['^internal/(clikit|base)/', '^internal/features/[^/]+/[^/]+\\.ts$'] },
    },
    {
      name: 'pure',
      comment:
        'format and domain/plan take values and return values: no disk, process, network, clock or timer module (rule 4)',
      severity: 'error',
      from: { path: '^internal/(format|domain/plan)/' },
      to: {
        dependencyTypes: ['core'],
        path: '^(node:)?(fs|fs/promises|child_process|net|http|https|http2|os|dns|dgram|tls|worker_threads|process|timers|timers/promises|readline|cluster|perf_hooks|v8|vm)$',
      },
    },
    {
      name: 'process',
      comment: 'only cmd/ touches process, and nothing builds a require() the graph cannot see (rule 5)',
      severity: 'error',
      from: { path: '^internal/' },
      to: { dependencyTypes: ['core'], path: '^(node:)?(process|module)$' },
    },
    {
      name: 'no cycles',
      comment: 'no cycle between folders (rule 1)',
      severity: 'error',
      scope: 'folder',
      from: { path: '^(internal|cmd)/' },
      to: { circular: true },
    },
  ],
  options: {
    parser: 'swc',
    doNotFollow: { path: 'node_modules' },
    // node_modules stays out of the graph (the heavy rule reads esbuild's); node's own modules stay in it.
    exclude: { path: ['\\.test\\.ts$', '^internal/testkit/', '^internal/board/web/', '^node_modules/'] },
    enhancedResolveOptions: { extensions: ['.ts', '.js'] },
  },
}
