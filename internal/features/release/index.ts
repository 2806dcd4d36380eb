import { train } from './train.js'

export const commands = [train]
