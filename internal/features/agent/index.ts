import { whoami } from './whoami.js'

export const commands = [whoami]
