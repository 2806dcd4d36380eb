import { dismiss } from './dismiss.js'
import { list } from './list.js'
import { sync } from './sync.js'

export const commands = [list, dismiss, sync]
