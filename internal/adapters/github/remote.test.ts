import { describe, expect, test } from 'vitest'
import { hostsFor, parseRemoteUrl } from './remote.js'

describe('git remotes', () => {
  test.each([
    ['https://github.com/acme/widgets.git', 'github.com', 'acme', 'widgets'],
    ['https://github.com/acme/widgets', 'github.com', 'acme', 'widgets'],
    ['https://x-access-token:s3cret@github.com/acme/widgets.git', 'github.com', 'acme', 'widgets'],
    ['http://ghe.example.com/team/tool/', 'ghe.example.com', 'team', 'tool'],
    ['git@github.com:acme/widgets.git', 'github.com', 'acme', 'widgets'],
    ['github.com:acme/widgets', 'github.com', 'acme', 'widgets'],
    ['ssh://git@github.com/acme/widgets.git', 'github.com', 'acme', 'widgets'],
    ['ssh://git@github.com:22/acme/my.repo.git', 'github.com', 'acme', 'my.repo'],
    ['git://github.com/acme/widgets.git', 'github.com', 'acme', 'widgets'],
  ])('%s', (url, host, owner, name) => {
    expect(parseRemoteUrl(url)).toEqual({ host, owner, name })
  })

  test.each(['/srv/git/widgets.git', 'file:///srv/git/widgets.git', 'https://github.com/acme', 'not a url', ''])(
    'not a hosted repository: %s',
    (url) => {
      expect(parseRemoteUrl(url)).toBeNull()
    },
  )

  test('accepted hosts follow the API URL (GitHub Enterprise)', () => {
    expect(hostsFor('https://api.github.com')).toEqual(['github.com'])
    expect(hostsFor('https://ghe.example.com/api/v3')).toEqual(['github.com', 'ghe.example.com'])
    expect(hostsFor('https://api.ghe.example.com')).toEqual(['github.com', 'ghe.example.com'])
  })
})
