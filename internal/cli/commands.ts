// The aggregate command table, eagerly imported: every slice's `commands`.
// The bin uses the build-time manifest (manifest.gen.ts) generated from the same
// modules, so it can load each command's module lazily; a test keeps the two equal.

import type { Command } from '../clikit/command.js'
import { commands as accept } from '../features/accept/index.js'
import { commands as agent } from '../features/agent/index.js'
import { commands as board } from '../features/board/index.js'
import { commands as claims } from '../features/claims/index.js'
import { commands as context } from '../features/context/index.js'
import { commands as doctor } from '../features/doctor/index.js'
import { commands as events } from '../features/events/index.js'
import { commands as github } from '../features/github/index.js'
import { commands as insight } from '../features/insight/index.js'
import { commands as lint } from '../features/lint/index.js'
import { commands as mcp } from '../features/mcp/index.js'
import { commands as meta } from '../features/meta/index.js'
import { commands as note } from '../features/note/index.js'
import { commands as project } from '../features/project/index.js'
import { commands as questions } from '../features/questions/index.js'
import { commands as record } from '../features/record/index.js'
import { commands as risk } from '../features/risk/index.js'
import { commands as task } from '../features/task/index.js'
import { commands as watch } from '../features/watch/index.js'
import { commands as worktree } from '../features/worktree/index.js'

export const commands: readonly Command[] = [
  ...meta,
  ...agent,
  ...project,
  ...task,
  ...claims,
  ...worktree,
  ...accept,
  ...note,
  ...risk,
  ...events,
  ...questions,
  ...insight,
  ...doctor,
  ...lint,
  ...context,
  ...github,
  ...record,
  ...mcp,
  ...watch,
  ...board,
]
