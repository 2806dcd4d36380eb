import { dismiss } from './dismiss.js'
import { list } from './list.js'
import { reconcile } from './reconcile.js'
import { sync } from './sync.js'

export const commands = [list, dismiss, reconcile, sync]
