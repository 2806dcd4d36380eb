// The eagerly imported command table the tests use: every slice's `commands` (its index.ts). A slice is a folder
// under internal/features/ — the folder is the list, as it is for the manifest the bin dispatches from
// (scripts/build.mjs); internal/cli/manifest.test.ts keeps the two identical.

import * as fs from 'node:fs'
import * as path from 'node:path'
import { pathToFileURL } from 'node:url'
import { byText } from '../base/order.js'
import type { Command } from '../clikit/command.js'

const FEATURES = path.join(import.meta.dirname, '..', 'features')

/** The feature slices, by folder name (`shared` holds what two slices render alike, no commands). */
const slices: readonly string[] = fs
  .readdirSync(FEATURES, { withFileTypes: true })
  .filter((d) => d.isDirectory() && d.name !== 'shared')
  .map((d) => d.name)
  .sort(byText)

const load = async (slice: string): Promise<readonly Command[]> =>
  ((await import(pathToFileURL(path.join(FEATURES, slice, 'index.ts')).href)) as { commands: readonly Command[] })
    .commands

export const commands: readonly Command[] = (await Promise.all(slices.map(load))).flat()
