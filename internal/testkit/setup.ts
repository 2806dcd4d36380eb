// vitest setup (every test file): remove the temporary folders the file made once it is done.

import { afterAll } from 'vitest'
import { cleanupTempDirs } from './ws.js'

// Removing a file's folders can take long on a loaded machine (thousands of small files): allow it.
afterAll(cleanupTempDirs, 600_000)
