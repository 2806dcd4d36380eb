import { doctor } from './doctor.js'

export const commands = [doctor]
