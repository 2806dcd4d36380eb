import { cleanup } from './cleanup.js'
import { reconcileCommand } from './reconcile.js'

export const commands = [reconcileCommand, cleanup]
