// vitest setup (every test file): install the process's System as the bin does,
// so code under test finds it exactly as in production; and remove the temporary
// folders the file made once it is done.

import { afterAll } from 'vitest'
import { nodeSystem } from '../../cmd/system.js'
import { installSystem } from '../base/system.js'
import { cleanupTempDirs } from './ws.js'

installSystem(nodeSystem)
// Removing a file's folders can take long on a loaded machine (thousands of small files): allow it.
afterAll(cleanupTempDirs, 600_000)
