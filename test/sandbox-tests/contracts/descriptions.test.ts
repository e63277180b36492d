// The check of one exchange against a description finds what it must: an operation that is not
// described, an undeclared or invalid parameter, a body that does not fit, an answer of the wrong
// type or a null where Coder omits the field. Synthetic exchanges, no servers.
import { beforeAll, describe, expect, it } from '@jest/globals'
import type { RecordedRequest } from '../../sandbox/contracts.js'
import { type Description, loadCoderDescription, loadGitHubDescription } from './descriptions.js'
import { checkExchange, undescribedStatus } from './exchange-check.js'

const JSON_BODY = { 'content-type': 'application/json; charset=utf-8' }

function exchange(
  partial: Partial<Omit<RecordedRequest, 'answer'>> & { answer?: unknown }
): RecordedRequest {
  const { answer, ...rest } = partial
  return {
    method: 'GET',
    path: '/',
    status: 200,
    at: 0,
    headers: JSON_BODY,
    ...rest,
    ...(answer === undefined ? {} : { answer: JSON.stringify(answer) })
  }
}

let github: Description
let coder: Description

beforeAll(() => {
  // Cut down to the operations these tests use (the whole description takes seconds to compile).
  github = loadGitHubDescription(
    ['/repos/a/b/issues/1/labels', '/repos/a/b/pulls', '/repos/a/b/branches/main/protection'].map(
      (p) => exchange({ method: p.endsWith('labels') ? 'POST' : 'GET', path: p })
    )
  )
  coder = loadCoderDescription()
}, 60_000)

describe('GitHub REST exchanges against api.github.com.json', () => {
  const label = { id: 1, node_id: 'L_1', url: 'https://x/l', name: 'coder', color: 'ffffff' }
  const labels = (answer: unknown) =>
    exchange({
      method: 'POST',
      path: '/repos/acme/gitops/issues/1/labels',
      body: JSON.stringify({ labels: ['coder'] }),
      answer
    })

  it('passes a described exchange, also under the GHES prefix /api/v3', () => {
    expect(checkExchange(github, labels([label]))).toEqual([])
    expect(
      checkExchange(github, { ...labels([label]), path: '/api/v3/repos/a/b/issues/1/labels' })
    ).toEqual([])
  })

  it('finds an operation that is not described', () => {
    const [problem] = checkExchange(github, exchange({ method: 'PATCH', path: '/repos/a/b/pulls' }))
    expect(problem).toContain('no such operation')
  })

  it('finds an undeclared query parameter and an invalid one', () => {
    const bogus = checkExchange(github, exchange({ path: '/repos/a/b/pulls?bogus=1', answer: [] }))
    expect(bogus.join()).toContain('query parameter bogus is not declared')
    const state = checkExchange(
      github,
      exchange({ path: '/repos/a/b/pulls?state=merged', answer: [] })
    )
    expect(state.join()).toContain('query state="merged"')
  })

  it('finds a body that does not fit the requestBody', () => {
    const problems = checkExchange(github, { ...labels([label]), body: '{"labels": "coder"}' })
    expect(problems.join()).toContain('request body')
  })

  it('finds an answer of the wrong type, but lets documented fields be absent', () => {
    expect(checkExchange(github, labels([{ ...label, id: '1' }])).join()).toContain('answer/0/id')
    expect(checkExchange(github, labels([{ name: 'coder' }]))).toEqual([])
  })

  it('finds a field the description does not name (real GitHub would not send it)', () => {
    expect(checkExchange(github, labels([{ ...label, merged: true }])).join()).toContain(
      'answer/0/merged is not in the description'
    )
  })

  it('checks an error status the description leaves out against basic-error, and names it', () => {
    const protection = exchange({
      path: '/repos/a/b/branches/main/protection',
      status: 403,
      answer: { message: 'Resource not accessible by integration', documentation_url: 'x' }
    })
    expect(checkExchange(github, protection)).toEqual([])
    expect(undescribedStatus(github, protection)).toBe(
      'GET /repos/{owner}/{repo}/branches/{branch}/protection 403'
    )
    expect(checkExchange(github, { ...protection, answer: '{"message": 1}' }).join()).toContain(
      'answer/message'
    )
  })
})

describe('Coder REST exchanges against coder-api-subset.json', () => {
  const user = { id: '7c9a1e52-1d0a-4b4a-9d7e-9b7a0a1b2c3d', username: 'admin' }

  it('passes a described exchange; {organization} may be a name (coder-api-subset.md)', () => {
    expect(checkExchange(coder, exchange({ path: '/api/v2/users/me', answer: user }))).toEqual([])
    const byName = exchange({
      path: '/api/v2/organizations/acme/templates/docker',
      answer: { name: 'docker', organization_name: 'acme' }
    })
    expect(checkExchange(coder, byName)).toEqual([])
  })

  it('finds a null where coderd omits the field, and an empty avatar_url', () => {
    const nulls = checkExchange(
      coder,
      exchange({ path: '/api/v2/users/me', answer: { ...user, name: null } })
    )
    expect(nulls.join()).toContain('answer/name must be string')
    const empty = exchange({ path: '/api/v2/users/me', answer: { ...user, avatar_url: '' } })
    expect(checkExchange(coder, empty).join()).toContain('answer/avatar_url must match format')
  })

  it('finds a field the subset does not name', () => {
    const extra = exchange({ path: '/api/v2/users/me', answer: { ...user, nickname: 'a' } })
    expect(checkExchange(coder, extra).join()).toContain(
      'answer/nickname is not in the description'
    )
  })

  it('finds an operation outside the subset', () => {
    const [problem] = checkExchange(coder, exchange({ method: 'POST', path: '/api/v2/files' }))
    expect(problem).toContain('no such operation in the coder description')
  })
})
