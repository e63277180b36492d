// When coder-url would send the session token in clear: a table of the pure rule.
import { describe, expect, it } from '@jest/globals'
import { cleartextTokenWarning } from '../../src/coder/cleartext.js'

describe('cleartextTokenWarning', () => {
  it.each([
    ['https on any host', 'https://coder.example.com'],
    ['http on 127.0.0.1', 'http://127.0.0.1:3000'],
    ['http anywhere in 127.0.0.0/8', 'http://127.255.0.9/'],
    ['http on IPv4 shorthand of the loopback', 'http://127.1:8080'],
    ['http on ::1', 'http://[::1]:3000'],
    ['http on localhost', 'http://localhost:3000'],
    ['http on LOCALHOST.', 'http://LOCALHOST.:3000/'],
    ['a URL the inputs step refuses', 'not a url']
  ])('stays quiet for %s', (_what, url) => {
    expect(cleartextTokenWarning(url)).toBeNull()
  })

  it.each([
    ['a name', 'http://coder.example.com', 'coder.example.com'],
    ['a private address', 'http://10.0.0.5:3000', '10.0.0.5'],
    ['an address that starts like the loopback', 'http://128.0.0.1', '128.0.0.1'],
    ['a name that starts like it', 'http://127.0.0.1.example.com', '127.0.0.1.example.com'],
    ['a name that ends like it', 'http://evil-localhost', 'evil-localhost'],
    ['IPv6 other than ::1', 'http://[::2]', '[::2]'],
    ['all addresses', 'http://0.0.0.0:3000', '0.0.0.0'],
    ['credentials in the URL', 'http://u:p@coder.internal', 'coder.internal']
  ])('warns for http on %s', (_what, url, host) => {
    const warning = cleartextTokenWarning(url)
    expect(warning).toContain(`http:// on ${host},`)
    expect(warning).toContain('travels in clear')
    expect(warning).not.toContain('u:p')
  })
})
