import { arch, platform } from 'node:os'
import { defineCommand } from '../../clikit/command.js'
import { BINARY_NAME, VERSION } from '../../clikit/version.js'
import type { VersionDocT } from './json.js'

export const version = defineCommand({
  path: 'version',
  summary: 'Print the version of dacli, its runtime and the on-disk format it reads',
  args: [],
  flags: {},
  json: 'version/v1',
  mutates: false,
  standalone: true,
  examples: ['dacli version --json', 'dacli --version'],
  async run() {
    const plat = `${platform()}-${arch()}`
    const data: VersionDocT = {
      schema: 'version/v1',
      name: BINARY_NAME,
      version: VERSION,
      node: process.version,
      platform: plat,
      format: 0,
    }
    return {
      data,
      human: (out) => out.line(`${BINARY_NAME} ${VERSION} (node ${data.node}, ${plat}, format ${data.format})`),
    }
  },
})
