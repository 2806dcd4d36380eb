// vitest setup (every test file): install the process's System as the bin does,
// so code under test finds it exactly as in production.

import { nodeSystem } from '../../cmd/system.js'
import { installSystem } from '../base/system.js'

installSystem(nodeSystem)
